package dev.omnigraph.engine;

import java.util.Objects;
import java.util.Optional;

/**
 * Decides whether a write through this handle may run, asked at the head of every engine writer before any work
 * ({@link OmnigraphBuilder#authorizer(Authorizer)}): mutations and loads ({@code change} on the branch), schema
 * applies ({@code schema_apply} into main), branch creates, deletes and merges (on their source and target). A
 * refusal is a {@code Forbidden} error (403 {@code forbidden} over HTTP). Without one, every write runs.
 * Implementations must be fast and non-blocking: they run on the caller's thread.
 */
@FunctionalInterface
public interface Authorizer {
    /** Writes an authorizer is asked about, with the reference system's action names. */
    enum Action {
        CHANGE("change"), SCHEMA_APPLY("schema_apply"), BRANCH_CREATE("branch_create"), BRANCH_DELETE("branch_delete"),
        BRANCH_MERGE("branch_merge");

        private final String wireName;

        Action(String wireName) {
            this.wireName = wireName;
        }

        /** The name policies spell the action with. */
        public String wireName() {
            return wireName;
        }
    }

    /**
     * One write to decide: who (empty when the call carries no actor: branch create and delete take none),
     * what, the branch read or written (a merge's source, a create's origin) and the branch it changes.
     */
    record Access(Optional<String> actor, Action action, Optional<String> branch, Optional<String> targetBranch) {
        public Access {
            Objects.requireNonNull(actor, "actor");
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(branch, "branch");
            Objects.requireNonNull(targetBranch, "target branch");
        }
    }

    /** Whether {@code access} may run. */
    boolean allows(Access access);
}

package dev.omnigraph.storage.error;

import java.util.Objects;
import java.util.Optional;

/**
 * A well-formed request for a commit's entity diff that this commit cannot answer: it has no parent (genesis), or a
 * table's columns differ between the commit and its parent (a schema boundary a row diff cannot bridge).
 */
public final class ChangeDiffRefused extends OmnigraphException {
    /** Why the diff was refused; {@link #wireName()} is the reference's spelling. */
    public enum Reason {
        PARENTLESS_COMMIT, SCHEMA_BOUNDARY;

        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private final Reason reason;
    private final String graphCommitId;
    private final Optional<String> typeName;

    public ChangeDiffRefused(Reason reason, String graphCommitId, Optional<String> typeName, String message) {
        super(ErrorCode.CHANGE_DIFF_REFUSAL, message, null);
        this.reason = Objects.requireNonNull(reason, "reason");
        this.graphCommitId = Objects.requireNonNull(graphCommitId, "graphCommitId");
        this.typeName = Objects.requireNonNull(typeName, "typeName");
    }

    public Reason reason() { return reason; }
    public String graphCommitId() { return graphCommitId; }
    public Optional<String> typeName() { return typeName; }
}

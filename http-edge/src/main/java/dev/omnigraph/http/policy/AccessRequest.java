package dev.omnigraph.http.policy;

import java.util.Objects;
import java.util.Optional;

/**
 * One question to a policy: may {@code actor} do {@code action} on {@code graph} (null for the server-wide
 * {@code graph_list}), reading or writing {@code branch}, changing {@code targetBranch}. The actor comes from the
 * bearer token (or the CLI's configured actor), never from the request itself.
 */
public record AccessRequest(Optional<String> actor, PolicyAction action, String graph, Optional<String> branch,
                            Optional<String> targetBranch) {
    public AccessRequest {
        Objects.requireNonNull(actor, "actor");
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(branch, "branch");
        Objects.requireNonNull(targetBranch, "target branch");
    }

    public static AccessRequest of(String actor, PolicyAction action, String graph, String branch, String targetBranch) {
        return new AccessRequest(Optional.ofNullable(actor), action, graph, Optional.ofNullable(branch),
                Optional.ofNullable(targetBranch));
    }

    /** What was asked, for a denial's message and the audit log: the action and the resource, never a rule. */
    public String resource() {
        StringBuilder text = new StringBuilder(graph == null ? "server" : "graph '" + graph + "'");
        branch.ifPresent(b -> text.append(", branch '").append(b).append('\''));
        targetBranch.ifPresent(b -> text.append(", target branch '").append(b).append('\''));
        return text.toString();
    }
}

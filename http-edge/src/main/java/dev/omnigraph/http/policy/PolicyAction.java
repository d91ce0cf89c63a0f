package dev.omnigraph.http.policy;

import java.util.Arrays;
import java.util.Optional;

/**
 * What a request asks to do, in the reference system's vocabulary (the wire names are what bundles and
 * {@code policy explain --action} spell). Each action knows which branch scope a rule may put on it: the branch
 * read or written ({@code branch_scope}), the branch a merge, schema apply or branch operation changes
 * ({@code target_branch_scope}), or none (graph-wide and server-wide actions).
 */
public enum PolicyAction {
    READ("read", Scope.BRANCH),
    EXPORT("export", Scope.BRANCH),
    CHANGE("change", Scope.BRANCH),
    SCHEMA_APPLY("schema_apply", Scope.TARGET),
    BRANCH_CREATE("branch_create", Scope.TARGET),
    BRANCH_DELETE("branch_delete", Scope.TARGET),
    BRANCH_MERGE("branch_merge", Scope.TARGET),
    /** Reaching a stored query; what the query then does is gated again as {@code read} or {@code change}. */
    INVOKE_QUERY("invoke_query", Scope.GRAPH),
    /** Maintenance of a graph as a whole: optimize, repair, recovery records. */
    ADMIN("admin", Scope.GRAPH),
    /** Listing the graphs a server serves; the one server-wide action. */
    GRAPH_LIST("graph_list", Scope.SERVER);

    /** Which scope a rule may put on the action, and which Cedar resource it applies to. */
    public enum Scope {
        /** {@code branch_scope}: the branch read or written; resource {@code Omnigraph::Graph}. */
        BRANCH,
        /** {@code target_branch_scope}: the branch changed by a branch operation; resource {@code Omnigraph::Graph}. */
        TARGET,
        /** No branch scope; resource {@code Omnigraph::Graph}. */
        GRAPH,
        /** No branch scope; resource {@code Omnigraph::Server::"root"}. */
        SERVER
    }

    private final String wireName;
    private final Scope scope;

    PolicyAction(String wireName, Scope scope) {
        this.wireName = wireName;
        this.scope = scope;
    }

    public String wireName() {
        return wireName;
    }

    public Scope scope() {
        return scope;
    }

    public boolean serverWide() {
        return scope == Scope.SERVER;
    }

    /** The action a wire name (or its dashed spelling) names. */
    public static Optional<PolicyAction> parse(String name) {
        String wanted = name == null ? "" : name.strip().replace('-', '_');
        return Arrays.stream(values()).filter(a -> a.wireName.equals(wanted)).findFirst();
    }

    /** Every wire name, for error messages and help. */
    public static String names() {
        return String.join(", ", Arrays.stream(values()).map(PolicyAction::wireName).toList());
    }

    @Override
    public String toString() {
        return wireName;
    }
}

package dev.omnigraph.http.policy;

import dev.omnigraph.engine.Authorizer;
import java.util.function.Supplier;

/**
 * A compiled policy as the engine's {@link Authorizer}, for handles opened through the library or the CLI
 * ({@code Omnigraph.at(root).authorizer(PolicyAuthorizer.of(policy, "graph-id"))}): the engine's writers then
 * get the same decisions the server's routes do. The policy is read from {@code current} on every decision, so
 * a reloading holder can be passed.
 */
public final class PolicyAuthorizer implements Authorizer {
    private final Supplier<CedarPolicy> current;
    private final String graph;

    private PolicyAuthorizer(Supplier<CedarPolicy> current, String graph) {
        this.current = current;
        this.graph = graph;
    }

    public static PolicyAuthorizer of(CedarPolicy policy, String graph) {
        return new PolicyAuthorizer(() -> policy, graph);
    }

    public static PolicyAuthorizer of(Supplier<CedarPolicy> current, String graph) {
        return new PolicyAuthorizer(current, graph);
    }

    @Override
    public boolean allows(Access access) {
        PolicyAction action = PolicyAction.parse(access.action().wireName()).orElseThrow();
        return current.get().decide(new AccessRequest(access.actor(), action, graph, access.branch(),
                access.targetBranch())).allowed();
    }
}

package dev.omnigraph.http.server;

import dev.omnigraph.http.policy.AccessRequest;
import dev.omnigraph.http.policy.Decision;
import dev.omnigraph.http.policy.PolicyAction;
import dev.omnigraph.http.wire.HttpProblem;
import java.util.Optional;

/**
 * One request's authorization: its actor, the graph it addresses and the {@link ServerPolicy.Policies} taken when
 * it started. Every decision of the request goes through {@link #require}, which refuses with 403
 * {@code forbidden} naming the action and the resource (never the rule that would have allowed it) and audits the
 * denial.
 */
record Gate(ServerPolicy owner, ServerPolicy.Policies policies, Optional<String> actor, String graph) {

    boolean enabled() {
        return policies.enabled();
    }

    Gate forGraph(String graphId) {
        return new Gate(owner, policies, actor, graphId);
    }

    /** Whether the policy allows it; not audited (a probe, such as "may this actor learn a graph is missing"). */
    boolean allows(PolicyAction action, String branch, String target) {
        return policies.decide(request(action, branch, target)).allowed();
    }

    /** Throws 403 unless the policy allows {@code action} on this graph and the given branches. */
    void require(PolicyAction action, String branch, String target) {
        AccessRequest request = request(action, branch, target);
        Decision decision = policies.decide(request);
        if (!decision.allowed()) {
            owner.audit(request, decision);
            throw forbidden(request);
        }
    }

    AccessRequest request(PolicyAction action, String branch, String target) {
        return new AccessRequest(actor, action, action.serverWide() ? null : graph, Optional.ofNullable(branch),
                Optional.ofNullable(target));
    }

    static HttpProblem forbidden(AccessRequest request) {
        return new HttpProblem(403, "forbidden", "not allowed: " + request.action().wireName() + " on "
                + request.resource());
    }
}

package dev.omnigraph.http.policy;

import com.cedarpolicy.BasicAuthorizationEngine;
import com.cedarpolicy.model.AuthorizationRequest;
import com.cedarpolicy.model.AuthorizationResponse;
import com.cedarpolicy.model.entity.Entity;
import com.cedarpolicy.model.exception.AuthException;
import com.cedarpolicy.model.policy.Policy;
import com.cedarpolicy.model.policy.PolicySet;
import com.cedarpolicy.value.EntityTypeName;
import com.cedarpolicy.value.EntityUID;
import com.cedarpolicy.value.PrimBool;
import com.cedarpolicy.value.PrimString;
import com.cedarpolicy.value.Value;
import dev.omnigraph.storage.error.ParseError;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A bundle compiled to Cedar and ready to answer {@link AccessRequest}s. Every allow rule becomes one
 * {@code permit} whose principal is the rule's group, whose actions are the rule's actions and whose resource is
 * a graph ({@code Omnigraph::Graph::"<id>"}) or the server ({@code Omnigraph::Server::"root"}); a scope becomes a
 * condition on the request context ({@code branch}, {@code branch_is_protected}, {@code target_branch},
 * {@code target_branch_is_protected}, {@code has_branch}, {@code has_target_branch}, {@code graph}). The raw
 * Cedar text is added as written. Cedar's rules then decide: a {@code forbid} wins, otherwise any {@code permit}
 * allows, otherwise the request is denied.
 *
 * <p>Immutable, so a reload swaps a whole policy and a request sees one policy only. Decisions are remembered
 * per request shape (bounded), because Cedar's native call costs a few hundred microseconds and servers ask the
 * same few questions again and again.
 */
public final class CedarPolicy {
    private static final EntityTypeName ACTOR = type("Omnigraph::Actor");
    private static final EntityTypeName GROUP = type("Omnigraph::Group");
    private static final EntityTypeName ACTION = type("Omnigraph::Action");
    private static final EntityTypeName GRAPH = type("Omnigraph::Graph");
    private static final EntityUID SERVER = new EntityUID(type("Omnigraph::Server"), "root");
    private static final int CACHE_LIMIT = 8192;
    private static final BasicAuthorizationEngine ENGINE = new BasicAuthorizationEngine();

    private final PolicyBundle bundle;
    private final PolicySet policies;
    private final Map<String, Set<Entity>> entitiesByActor;
    private final Map<AccessRequest, Decision> decided = new ConcurrentHashMap<>();

    private CedarPolicy(PolicyBundle bundle, PolicySet policies, Map<String, Set<Entity>> entitiesByActor) {
        this.bundle = bundle;
        this.policies = policies;
        this.entitiesByActor = entitiesByActor;
    }

    /** Compiles a bundle; raw Cedar that does not parse is a {@link ParseError} at the bundle's {@code cedar} key. */
    public static CedarPolicy compile(PolicyBundle bundle) {
        Set<Policy> set = new LinkedHashSet<>();
        for (PolicyBundle.Rule rule : bundle.rules()) {
            set.add(new Policy(permit(rule), rule.id()));
        }
        if (!bundle.cedar().isBlank()) {
            try {
                int index = 0;
                Set<String> ids = new HashSet<>(bundle.rules().stream().map(PolicyBundle.Rule::id).toList());
                for (Policy raw : PolicySet.parsePolicies(bundle.cedar()).policies) {
                    String named = annotation(raw);
                    String id = named != null ? named : "cedar#" + index;
                    index++;
                    if (!ids.add(id)) {
                        throw new ParseError(bundle.origin(), bundle.cedarLine(), 1, id, "Cedar policy id '" + id
                                + "' is used twice (a rule or another @id has it)");
                    }
                    set.add(new Policy(raw.policySrc, id));
                }
            } catch (AuthException e) {
                throw new ParseError(bundle.origin(), bundle.cedarLine(), 1, "cedar", "the Cedar policies do not parse: "
                        + e.getMessage().replaceFirst("^Internal error: Internal JNI Error: ", ""));
            }
        }
        Map<String, Set<Entity>> entities = entities(bundle);
        CedarPolicy compiled = new CedarPolicy(bundle, new PolicySet(set), entities);
        try {
            // One evaluation now, so a policy Cedar cannot load fails at load time, not on the first request.
            compiled.evaluate(AccessRequest.of("", PolicyAction.READ, "", "main", null));
        } catch (AuthException e) {
            throw new ParseError(bundle.origin(), Math.max(1, bundle.cedarLine()), 1, "cedar",
                    "the policies do not load into Cedar: " + e.getMessage());
        }
        return compiled;
    }

    public PolicyBundle bundle() {
        return bundle;
    }

    /** The number of Cedar policies (one per rule plus the raw ones). */
    public int size() {
        return policies.policies.size();
    }

    /** Cedar text of the compiled policies, for {@code policy validate --print}. */
    public String cedarText() {
        StringBuilder text = new StringBuilder();
        for (Policy policy : policies.policies) text.append("// ").append(policy.policyID).append('\n')
                .append(policy.policySrc.strip()).append("\n\n");
        return text.toString();
    }

    public Decision decide(AccessRequest request) {
        if (request.actor().isEmpty()) return Decision.deny("the request has no actor");
        Decision known = decided.get(request);
        if (known != null) return known;
        Decision decision;
        try {
            decision = evaluate(request);
        } catch (AuthException e) {
            decision = Decision.deny("the policy could not be evaluated: " + e.getMessage());
        }
        if (decided.size() >= CACHE_LIMIT) decided.clear();
        decided.put(request, decision);
        return decision;
    }

    private Decision evaluate(AccessRequest request) throws AuthException {
        String actor = request.actor().orElse("");
        EntityUID principal = new EntityUID(ACTOR, actor);
        EntityUID resource = request.action().serverWide() ? SERVER
                : new EntityUID(GRAPH, request.graph() == null ? "" : request.graph());
        Map<String, Value> context = new HashMap<>();
        context.put("graph", new PrimString(request.graph() == null ? "" : request.graph()));
        putBranch(context, "", request.branch());
        putBranch(context, "target_", request.targetBranch());
        Set<Entity> entities = entitiesByActor.getOrDefault(actor, Set.of(new Entity(principal)));
        AuthorizationResponse response = ENGINE.isAuthorized(new AuthorizationRequest(principal,
                new EntityUID(ACTION, request.action().wireName()), resource, context), policies, entities);
        if (response.success.isEmpty()) {
            return Decision.deny("the policy could not be evaluated: " + response.errors.map(Object::toString).orElse("?"));
        }
        var success = response.success.get();
        List<String> rules = List.copyOf(new java.util.TreeSet<>(success.getReason()));
        if (success.isAllowed()) return new Decision(true, rules, "allowed by " + String.join(", ", rules));
        return new Decision(false, rules, rules.isEmpty() ? "no rule allows it" : "forbidden by " + String.join(", ", rules));
    }

    private void putBranch(Map<String, Value> context, String prefix, Optional<String> branch) {
        context.put("has_" + prefix + "branch", new PrimBool(branch.isPresent()));
        context.put(prefix + "branch", new PrimString(branch.orElse("")));
        context.put(prefix + "branch_is_protected",
                new PrimBool(branch.isPresent() && bundle.protectedBranches().contains(branch.get())));
    }

    /** The permit a rule compiles to. */
    static String permit(PolicyBundle.Rule rule) {
        boolean server = rule.actions().get(0).serverWide();
        List<String> actions = new ArrayList<>();
        for (PolicyAction action : rule.actions()) actions.add("Omnigraph::Action::" + quote(action.wireName()));
        StringBuilder text = new StringBuilder("permit (principal in Omnigraph::Group::").append(quote(rule.group()))
                .append(", action in [").append(String.join(", ", actions)).append("], resource is ")
                .append(server ? "Omnigraph::Server" : "Omnigraph::Graph").append(')');
        rule.branchScope().ifPresent(scope -> condition(text, "", scope));
        rule.targetBranchScope().ifPresent(scope -> condition(text, "target_", scope));
        return text.append(';').toString();
    }

    private static void condition(StringBuilder text, String prefix, BranchScope scope) {
        switch (scope) {
            case ANY -> { }
            case PROTECTED -> text.append(" when { context.has_").append(prefix).append("branch && context.")
                    .append(prefix).append("branch_is_protected }");
            case UNPROTECTED -> text.append(" when { context.has_").append(prefix).append("branch && !context.")
                    .append(prefix).append("branch_is_protected }");
        }
    }

    /** Each actor with the groups it belongs to: all Cedar needs to resolve {@code principal in Group}. */
    private static Map<String, Set<Entity>> entities(PolicyBundle bundle) {
        Map<String, Set<EntityUID>> parents = new HashMap<>();
        bundle.groups().forEach((group, actors) -> actors.forEach(actor ->
                parents.computeIfAbsent(actor, a -> new HashSet<>()).add(new EntityUID(GROUP, group))));
        Map<String, Set<Entity>> out = new HashMap<>();
        parents.forEach((actor, groups) -> {
            Set<Entity> set = new HashSet<>();
            set.add(new Entity(new EntityUID(ACTOR, actor), groups));
            groups.forEach(g -> set.add(new Entity(g)));
            out.put(actor, Set.copyOf(set));
        });
        return Map.copyOf(out);
    }

    private static String annotation(Policy policy) {
        try {
            return policy.getAnnotation("id");
        } catch (AuthException | RuntimeException e) {
            return null;
        }
    }

    /** A Cedar string literal: quotes and backslashes escaped, anything non-printable as {@code \\u{..}}. */
    static String quote(String value) {
        StringBuilder out = new StringBuilder("\"");
        value.codePoints().forEach(c -> {
            if (c == '"' || c == '\\') out.append('\\').appendCodePoint(c);
            else if (c < 0x20 || c == 0x7f) out.append("\\u{").append(Integer.toHexString(c)).append('}');
            else out.appendCodePoint(c);
        });
        return out.append('"').toString();
    }

    private static EntityTypeName type(String name) {
        return EntityTypeName.parse(name).orElseThrow();
    }
}

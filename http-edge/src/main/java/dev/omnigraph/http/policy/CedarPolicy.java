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
    private static final int MAX_REMEMBERED_CHARS = 1024;
    /**
     * At most this many (group combination, action) policy sets are prepared per bundle. Cedar keeps prepared sets
     * in one process-wide table (freed when a set is collected, e.g. after a reload), raised here to
     * {@link #PREPARED_PROCESS_LIMIT}; a set that finds it full is simply not prepared.
     */
    private static final int PREPARED_LIMIT = 2048;
    private static final int PREPARED_PROCESS_LIMIT = 16_384;

    static {
        try {
            PolicySet.setCacheMaxPolicySets(PREPARED_PROCESS_LIMIT);
        } catch (RuntimeException | UnsatisfiedLinkError e) {
            // Cedar's default table size stays: fewer sets are prepared, decisions are the same.
        }
    }
    private static final BasicAuthorizationEngine ENGINE = new BasicAuthorizationEngine();

    private final PolicyBundle bundle;
    private final PolicySet policies;
    /** Each rule's permit, in rule order. */
    private final List<Policy> rulePolicies;
    /** The raw Cedar policies: they may name any actor or action, so every question gets them. */
    private final List<Policy> rawPolicies;
    private final Map<String, Set<Entity>> entitiesByActor;
    private final Map<AccessRequest, Decision> decided = new ConcurrentHashMap<>();
    /** Each actor's groups. */
    private final Map<String, Set<String>> groupsByActor;
    /** Prepared policy sets by (group combination, action): those groups' rules for the action, and the raw ones. */
    private final Map<String, PolicySet> relevant = new HashMap<>();

    private CedarPolicy(PolicyBundle bundle, PolicySet policies, List<Policy> rulePolicies, List<Policy> rawPolicies,
                        Map<String, Set<Entity>> entitiesByActor) {
        this.bundle = bundle;
        this.policies = policies;
        this.rulePolicies = rulePolicies;
        this.rawPolicies = rawPolicies;
        this.entitiesByActor = entitiesByActor;
        Map<String, Set<String>> groups = new HashMap<>();
        bundle.groups().forEach((group, members) -> members.forEach(actor ->
                groups.computeIfAbsent(actor, a -> new HashSet<>()).add(group)));
        groups.replaceAll((actor, set) -> Set.copyOf(set));
        this.groupsByActor = Map.copyOf(groups);
    }

    /** Compiles a bundle; raw Cedar that does not parse is a {@link ParseError} at the bundle's {@code cedar} key. */
    public static CedarPolicy compile(PolicyBundle bundle) {
        Set<Policy> set = new LinkedHashSet<>();
        List<Policy> rules = new ArrayList<>();
        for (PolicyBundle.Rule rule : bundle.rules()) {
            Policy permit = new Policy(permit(rule), rule.id());
            rules.add(permit);
            set.add(permit);
        }
        List<Policy> raws = new ArrayList<>();
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
                    Policy renamed = new Policy(raw.policySrc, id);
                    raws.add(renamed);
                    set.add(renamed);
                }
            } catch (AuthException e) {
                throw new ParseError(bundle.origin(), bundle.cedarLine(), 1, "cedar", "the Cedar policies do not parse: "
                        + e.getMessage().replaceFirst("^Internal error: Internal JNI Error: ", ""));
            }
        }
        Map<String, Set<Entity>> entities = entities(bundle);
        CedarPolicy compiled = new CedarPolicy(bundle, new PolicySet(set), List.copyOf(rules), List.copyOf(raws), entities);
        compiled.prepare();
        try {
            // One evaluation of every policy now, so a policy Cedar cannot load fails at load time, not on a request.
            compiled.evaluate(AccessRequest.of("", PolicyAction.READ, "", "main", null), compiled.policies);
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
            decision = evaluate(request, relevant(request.actor().orElse(""), request.action()));
        } catch (AuthException e) {
            decision = Decision.deny("the policy could not be evaluated: " + e.getMessage());
        }
        // Only short questions are remembered: a hostile caller sending megabyte branch names must not fill the heap.
        if (rememberable(request)) {
            if (decided.size() >= CACHE_LIMIT) decided.clear();
            decided.put(request, decision);
        }
        return decision;
    }

    private static boolean rememberable(AccessRequest request) {
        long length = request.actor().map(String::length).orElse(0) + request.branch().map(String::length).orElse(0)
                + request.targetBranch().map(String::length).orElse(0) + (request.graph() == null ? 0 : request.graph().length());
        return length <= MAX_REMEMBERED_CHARS;
    }

    /**
     * The policies that can decide questions of {@code actor} about {@code action}: a rule whose group the actor is
     * not in, or whose actions do not include this one, can never apply, and Cedar's cost grows with the policies
     * it is handed. Prepared when the bundle is compiled (see {@link #prepare}); built here, unprepared, only for a
     * bundle with more group combinations than are prepared.
     */
    private PolicySet relevant(String actor, PolicyAction action) {
        Set<String> groups = groupsByActor.getOrDefault(actor, Set.of());
        PolicySet known = relevant.get(key(groups, action));
        return known != null ? known : subset(groups, action);
    }

    private static String key(Set<String> groups, PolicyAction action) {
        return action.wireName() + "\u0000" + String.join("\u0000", new java.util.TreeSet<>(groups));
    }

    private PolicySet subset(Set<String> groups, PolicyAction action) {
        Set<Policy> subset = new LinkedHashSet<>();
        for (int i = 0; i < rulePolicies.size(); i++) {
            PolicyBundle.Rule rule = bundle.rules().get(i);
            if (groups.contains(rule.group()) && rule.actions().contains(action)) subset.add(rulePolicies.get(i));
        }
        subset.addAll(rawPolicies);
        return new PolicySet(subset);
    }

    /**
     * Builds the policy set of every (group combination, action), up to {@link #PREPARED_LIMIT}, and has Cedar
     * parse and keep each ({@code PolicySet.cache}). Runs when the bundle is compiled, on the loading thread:
     * caching draws a random key, which may read {@code /dev/urandom}, so it must never run on an event loop.
     */
    private void prepare() {
        Set<Set<String>> combinations = new LinkedHashSet<>(groupsByActor.values());
        combinations.add(Set.of());
        if ((long) combinations.size() * PolicyAction.values().length > PREPARED_LIMIT) return;
        for (Set<String> groups : combinations) {
            for (PolicyAction action : PolicyAction.values()) {
                PolicySet set = subset(groups, action);
                try {
                    set.cache();
                } catch (Exception e) {
                    // Uncached, Cedar parses the set on every call: slower, still correct.
                }
                relevant.put(key(groups, action), set);
            }
        }
    }

    private Decision evaluate(AccessRequest request, PolicySet policies) throws AuthException {
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

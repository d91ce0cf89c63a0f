package dev.omnigraph.http.policy;

import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.ParseError;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Declarative expectations for {@code policy test}: {@code version: 1} and {@code cases}, each with an
 * {@code id}, an {@code actor}, an {@code action}, optionally a {@code branch}, a {@code target_branch} and a
 * {@code graph} (default {@code default}), and {@code expect: allow|deny}.
 */
public final class PolicyCases {
    public record Case(String id, AccessRequest request, boolean expectAllow, int line) {
    }

    /** A case whose decision differs from its expectation. */
    public record Mismatch(Case testCase, Decision decision) {
    }

    private PolicyCases() {
    }

    public static List<Case> read(Path file) {
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8), file.getFileName().toString());
        } catch (IOException e) {
            throw new BadRequest("policy tests " + file + ": cannot be read (" + e.getClass().getSimpleName() + ")");
        }
    }

    public static List<Case> parse(String text, String origin) {
        YamlTree root = YamlTree.parse(text, origin);
        Map<String, YamlTree> top = root.map();
        if (top == null) throw new ParseError(origin, root.line(), root.column(), "", "expected a mapping with version and cases");
        YamlTree version = top.get("version");
        if (version == null || !"1".equals(version.text())) {
            throw new ParseError(origin, root.line(), root.column(), "version", "the tests need 'version: 1'");
        }
        YamlTree casesNode = top.get("cases");
        List<YamlTree> list = casesNode == null ? List.of() : casesNode.list();
        if (list == null) throw new ParseError(origin, casesNode.line(), casesNode.column(), "cases", "'cases' must be a list");
        List<Case> cases = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (YamlTree node : list) {
            Map<String, YamlTree> c = node.map();
            if (c == null) throw new ParseError(origin, node.line(), node.column(), "cases", "a case must be a mapping");
            String id = required(c, "id", node, origin, "");
            if (!ids.add(id)) throw new ParseError(origin, node.line(), node.column(), id, "case id '" + id + "' is used twice");
            String actor = required(c, "actor", node, origin, id);
            String actionName = required(c, "action", node, origin, id);
            PolicyAction action = PolicyAction.parse(actionName).orElseThrow(() -> new ParseError(origin,
                    c.get("action").line(), c.get("action").column(), id, "unknown action '" + actionName + "'"));
            String expect = required(c, "expect", node, origin, id);
            if (!expect.equals("allow") && !expect.equals("deny")) {
                throw new ParseError(origin, c.get("expect").line(), c.get("expect").column(), id,
                        "expect must be allow or deny, got '" + expect + "'");
            }
            String graph = optional(c, "graph").orElse(action.serverWide() ? null : "default");
            cases.add(new Case(id, new AccessRequest(Optional.of(actor), action, graph, optional(c, "branch"),
                    optional(c, "target_branch")), expect.equals("allow"), node.line()));
        }
        return cases;
    }

    /** The cases whose decision under {@code policy} differs from what they expect. */
    public static List<Mismatch> run(CedarPolicy policy, List<Case> cases) {
        List<Mismatch> out = new ArrayList<>();
        for (Case c : cases) {
            Decision decision = policy.decide(c.request());
            if (decision.allowed() != c.expectAllow()) out.add(new Mismatch(c, decision));
        }
        return out;
    }

    private static String required(Map<String, YamlTree> c, String key, YamlTree node, String origin, String id) {
        YamlTree value = c.get(key);
        if (value == null || value.text() == null || value.text().isBlank()) {
            throw new ParseError(origin, node.line(), node.column(), id, "the case needs '" + key + "'");
        }
        return value.text();
    }

    private static Optional<String> optional(Map<String, YamlTree> c, String key) {
        YamlTree value = c.get(key);
        return value == null ? Optional.empty() : Optional.ofNullable(value.text());
    }
}

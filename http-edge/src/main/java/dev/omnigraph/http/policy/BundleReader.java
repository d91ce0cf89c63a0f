package dev.omnigraph.http.policy;

import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.ParseError;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads a YAML policy bundle and refuses, with a {@link ParseError} at the offending line and column, anything a
 * compiled policy could not mean: an unknown key or action, a rule naming an unknown group, both scopes on one
 * rule, a scope on an action that takes none (or the other one), a rule mixing the server-wide {@code graph_list}
 * with per-graph actions, blank or over-long names, too many rules.
 */
public final class BundleReader {
    /** A bundle file larger than this is refused before parsing. */
    public static final long MAX_BYTES = 8L * 1024 * 1024;
    public static final int MAX_RULES = 10_000;
    /** Group, actor, branch and rule names are at most this many characters. */
    public static final int MAX_NAME = 256;
    private static final Set<String> TOP_KEYS = Set.of("version", "groups", "protected_branches", "rules", "cedar");
    private static final Set<String> RULE_KEYS = Set.of("id", "allow");
    private static final Set<String> ALLOW_KEYS = Set.of("actors", "actions", "branch_scope", "target_branch_scope");

    private final String origin;

    private BundleReader(String origin) {
        this.origin = origin;
    }

    /** Reads the bundle at {@code file} (blocking). A missing or unreadable file is a {@link BadRequest}. */
    public static PolicyBundle read(Path file) {
        try {
            if (Files.size(file) > MAX_BYTES) {
                throw new BadRequest("policy bundle " + file + " is larger than " + MAX_BYTES + " bytes");
            }
            return parse(Files.readString(file, StandardCharsets.UTF_8), file.getFileName().toString());
        } catch (NoSuchFileException e) {
            throw new BadRequest("policy bundle " + file + ": no such file");
        } catch (java.nio.charset.MalformedInputException e) {
            throw new ParseError(file.getFileName().toString(), 1, 1, "", "the file is not UTF-8 text");
        } catch (IOException e) {
            throw new BadRequest("policy bundle " + file + ": cannot be read (" + e.getClass().getSimpleName() + ")");
        }
    }

    /** Parses and validates bundle text; {@code origin} names it in errors. */
    public static PolicyBundle parse(String text, String origin) {
        return new BundleReader(origin).bundle(YamlTree.parse(text, origin));
    }

    private PolicyBundle bundle(YamlTree root) {
        Map<String, YamlTree> top = requireMap(root, "", "the bundle must be a YAML mapping (version, groups, rules, ...)");
        onlyKeys(top, TOP_KEYS, "");
        YamlTree version = top.get("version");
        if (version == null) throw error(root, "", "the bundle needs 'version: 1'");
        if (!"1".equals(version.text())) throw error(version, "version", "version must be 1, got '" + version.value() + "'");

        Map<String, List<String>> groups = new LinkedHashMap<>();
        YamlTree groupsNode = top.get("groups");
        if (groupsNode != null && groupsNode.value() != null) {
            for (Map.Entry<String, YamlTree> group : requireMap(groupsNode, "groups", "'groups' must map group names to actor lists").entrySet()) {
                String name = name(group.getValue(), group.getKey(), "group name");
                List<String> members = new ArrayList<>();
                for (YamlTree member : requireList(group.getValue(), name, "group '" + name + "' must list its actor ids")) {
                    members.add(name(member, scalar(member, name, "an actor id"), "actor id"));
                }
                if (members.isEmpty()) throw error(group.getValue(), name, "group '" + name + "' has no actors");
                groups.put(name, List.copyOf(members));
            }
        }

        Set<String> protectedBranches = new LinkedHashSet<>();
        YamlTree protectedNode = top.get("protected_branches");
        if (protectedNode != null && protectedNode.value() != null) {
            for (YamlTree branch : requireList(protectedNode, "protected_branches", "'protected_branches' must be a list of branch names")) {
                protectedBranches.add(name(branch, scalar(branch, "protected_branches", "a branch name"), "branch name"));
            }
        }

        List<PolicyBundle.Rule> rules = new ArrayList<>();
        YamlTree rulesNode = top.get("rules");
        if (rulesNode != null && rulesNode.value() != null) {
            List<YamlTree> list = requireList(rulesNode, "rules", "'rules' must be a list");
            if (list.size() > MAX_RULES) {
                throw error(rulesNode, "rules", list.size() + " rules; a bundle holds at most " + MAX_RULES);
            }
            Set<String> ids = new LinkedHashSet<>();
            for (YamlTree ruleNode : list) {
                PolicyBundle.Rule rule = rule(ruleNode, groups);
                if (!ids.add(rule.id())) throw error(ruleNode, rule.id(), "rule id '" + rule.id() + "' is used twice");
                rules.add(rule);
            }
        }

        String cedar = "";
        int cedarLine = 0;
        YamlTree cedarNode = top.get("cedar");
        if (cedarNode != null && cedarNode.value() != null) {
            cedar = scalar(cedarNode, "cedar", "Cedar policy text (a YAML block: 'cedar: |')");
            cedarLine = cedarNode.line();
        }
        return new PolicyBundle(Map.copyOf(groups), Set.copyOf(protectedBranches), List.copyOf(rules), cedar,
                cedarLine, origin);
    }

    private PolicyBundle.Rule rule(YamlTree node, Map<String, List<String>> groups) {
        Map<String, YamlTree> rule = requireMap(node, "rules", "a rule must be a mapping with 'id' and 'allow'");
        onlyKeys(rule, RULE_KEYS, "rule");
        YamlTree idNode = rule.get("id");
        if (idNode == null) throw error(node, "rules", "a rule needs an 'id'");
        String id = name(idNode, scalar(idNode, "rules", "a rule id"), "rule id");
        YamlTree allowNode = rule.get("allow");
        if (allowNode == null) throw error(node, id, "rule '" + id + "' needs 'allow' (actors, actions)");
        Map<String, YamlTree> allow = requireMap(allowNode, id, "'allow' must be a mapping (actors, actions, scope)");
        onlyKeys(allow, ALLOW_KEYS, id);

        YamlTree actorsNode = allow.get("actors");
        if (actorsNode == null) throw error(allowNode, id, "rule '" + id + "' needs 'actors: { group: <name> }'");
        Map<String, YamlTree> actors = requireMap(actorsNode, id, "'actors' must be '{ group: <name> }'");
        onlyKeys(actors, Set.of("group"), id);
        YamlTree groupNode = actors.get("group");
        if (groupNode == null) throw error(actorsNode, id, "'actors' must name a group");
        String group = scalar(groupNode, id, "a group name");
        if (!groups.containsKey(group)) throw error(groupNode, id, "rule '" + id + "' names unknown group '" + group + "'");

        YamlTree actionsNode = allow.get("actions");
        if (actionsNode == null) throw error(allowNode, id, "rule '" + id + "' needs 'actions'");
        List<PolicyAction> actions = new ArrayList<>();
        for (YamlTree actionNode : requireList(actionsNode, id, "'actions' must be a list")) {
            String name = scalar(actionNode, id, "an action name");
            PolicyAction action = PolicyAction.parse(name).orElseThrow(() -> error(actionNode, id,
                    "unknown action '" + name + "' (known: " + PolicyAction.names() + ")"));
            if (!actions.contains(action)) actions.add(action);
        }
        if (actions.isEmpty()) throw error(actionsNode, id, "rule '" + id + "' lists no actions");
        boolean server = actions.stream().anyMatch(PolicyAction::serverWide);
        if (server && actions.stream().anyMatch(a -> !a.serverWide())) {
            throw error(actionsNode, id, "rule '" + id + "' mixes the server-wide action graph_list with per-graph "
                    + "actions; split it into two rules");
        }
        Optional<BranchScope> branchScope = scope(allow.get("branch_scope"), id, "branch_scope", actions, PolicyAction.Scope.BRANCH);
        Optional<BranchScope> targetScope = scope(allow.get("target_branch_scope"), id, "target_branch_scope", actions,
                PolicyAction.Scope.TARGET);
        if (branchScope.isPresent() && targetScope.isPresent()) {
            throw error(allow.get("target_branch_scope"), id, "rule '" + id + "' sets both branch_scope and "
                    + "target_branch_scope; use one per rule");
        }
        return new PolicyBundle.Rule(id, group, List.copyOf(actions), branchScope, targetScope, node.line());
    }

    private Optional<BranchScope> scope(YamlTree node, String id, String key, List<PolicyAction> actions,
                                        PolicyAction.Scope takes) {
        if (node == null || node.value() == null) return Optional.empty();
        String text = scalar(node, id, "any, protected or unprotected");
        BranchScope scope = BranchScope.parse(text).orElseThrow(() -> error(node, id, key + " must be any, protected "
                + "or unprotected, got '" + text + "'"));
        for (PolicyAction action : actions) {
            if (action.scope() != takes) {
                String what = switch (action.scope()) {
                    case BRANCH -> "takes branch_scope, not " + key;
                    case TARGET -> "takes target_branch_scope, not " + key;
                    case GRAPH -> "applies to the whole graph and takes no branch scope";
                    case SERVER -> "applies to the server and takes no branch scope";
                };
                throw error(node, id, "rule '" + id + "': action " + action.wireName() + " " + what);
            }
        }
        return Optional.of(scope);
    }

    private void onlyKeys(Map<String, YamlTree> map, Set<String> allowed, String subject) {
        for (Map.Entry<String, YamlTree> entry : map.entrySet()) {
            if (!allowed.contains(entry.getKey())) {
                throw error(entry.getValue(), subject, "unknown key '" + entry.getKey() + "' (expected one of "
                        + String.join(", ", allowed.stream().sorted().toList()) + ")");
            }
        }
    }

    private Map<String, YamlTree> requireMap(YamlTree node, String subject, String message) {
        Map<String, YamlTree> map = node.map();
        if (map == null) throw error(node, subject, message);
        return map;
    }

    private List<YamlTree> requireList(YamlTree node, String subject, String message) {
        List<YamlTree> list = node.list();
        if (list == null) throw error(node, subject, message);
        return list;
    }

    private String scalar(YamlTree node, String subject, String what) {
        String text = node.text();
        if (text == null) throw error(node, subject, "expected " + what + " here");
        return text;
    }

    /** A name as given, refused when blank, over-long or holding control characters (Unicode letters are fine). */
    private String name(YamlTree node, String name, String what) {
        if (name.isBlank()) throw error(node, name, what + " must not be blank");
        if (name.codePointCount(0, name.length()) > MAX_NAME) {
            throw error(node, name.substring(0, 32) + "…", what + " is longer than " + MAX_NAME + " characters");
        }
        if (name.codePoints().anyMatch(c -> Character.isISOControl(c) || c == 0xFFFD)) {
            throw error(node, "", what + " '" + name.replaceAll("\\p{Cntrl}", "?") + "' holds control characters");
        }
        return name;
    }

    private ParseError error(YamlTree node, String subject, String message) {
        int line = node == null ? 1 : node.line();
        int column = node == null ? 1 : node.column();
        return new ParseError(origin, line, column, subject, message);
    }
}

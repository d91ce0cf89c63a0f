package dev.omnigraph.http.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.error.ParseError;
import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyBundleTest {
    /** The reference's agents example: agents read and write off main, and may open and propose branches. */
    static final String AGENTS = """
            version: 1
            groups:
              agents: [act-research-agent, act-enrichment-agent]
              reviewers: [act-andrew]
            protected_branches: [main]
            rules:
              - id: agents-read-and-write-off-main
                allow:
                  actors: { group: agents }
                  actions: [read, change]
                  branch_scope: unprotected
              - id: agents-may-open-and-propose
                allow:
                  actors: { group: agents }
                  actions: [branch_create, branch_merge]
                  target_branch_scope: unprotected
              - id: reviewers-merge-into-protected
                allow:
                  actors: { group: reviewers }
                  actions: [read, export, change]
                  branch_scope: any
              - id: reviewers-land
                allow:
                  actors: { group: reviewers }
                  actions: [branch_merge, branch_delete, schema_apply, branch_create]
                  target_branch_scope: any
            """;

    /** The reference's cluster-scoped example: admins may list graphs. */
    static final String ADMINS_LIST = """
            version: 1
            groups:
              admins: [act-andrew]
            rules:
              - id: admins-can-list-graphs
                allow:
                  actors: { group: admins }
                  actions: [graph_list]
            """;

    private static Decision decide(CedarPolicy policy, String actor, PolicyAction action, String branch, String target) {
        return policy.decide(AccessRequest.of(actor, action, "g", branch, target));
    }

    @Test
    void agentsExampleBehavesAsDocumented() {
        CedarPolicy policy = CedarPolicy.compile(BundleReader.parse(AGENTS, "agents.yaml"));
        assertThat(decide(policy, "act-research-agent", PolicyAction.CHANGE, "feature", null).allowed()).isTrue();
        assertThat(decide(policy, "act-research-agent", PolicyAction.READ, "feature", null).allowed()).isTrue();
        assertThat(decide(policy, "act-research-agent", PolicyAction.CHANGE, "main", null).allowed()).isFalse();
        assertThat(decide(policy, "act-research-agent", PolicyAction.READ, "main", null).allowed()).isFalse();
        assertThat(decide(policy, "act-research-agent", PolicyAction.BRANCH_MERGE, "feature", "main").allowed()).isFalse();
        assertThat(decide(policy, "act-research-agent", PolicyAction.BRANCH_MERGE, "a", "feature").allowed()).isTrue();
        assertThat(decide(policy, "act-research-agent", PolicyAction.SCHEMA_APPLY, null, "main").allowed()).isFalse();
        assertThat(decide(policy, "act-andrew", PolicyAction.BRANCH_MERGE, "feature", "main").rules())
                .containsExactly("reviewers-land");
        assertThat(decide(policy, "act-stranger", PolicyAction.READ, "feature", null).allowed()).isFalse();
        assertThat(decide(policy, "act-andrew", PolicyAction.GRAPH_LIST, null, null).allowed()).isFalse();
    }

    @Test
    void graphListBundleAllowsListingOnly() {
        CedarPolicy policy = CedarPolicy.compile(BundleReader.parse(ADMINS_LIST, "cluster.yaml"));
        assertThat(policy.decide(AccessRequest.of("act-andrew", PolicyAction.GRAPH_LIST, null, null, null)).allowed()).isTrue();
        assertThat(policy.decide(AccessRequest.of("act-bob", PolicyAction.GRAPH_LIST, null, null, null)).allowed()).isFalse();
        assertThat(decide(policy, "act-andrew", PolicyAction.READ, "main", null).allowed()).isFalse();
    }

    @Test
    void rawCedarForbidOverridesAPermit() {
        String bundle = AGENTS + """
                cedar: |
                  @id("no-friday-branch")
                  forbid (principal, action, resource) when { context.branch == "friday" };
                """;
        CedarPolicy policy = CedarPolicy.compile(BundleReader.parse(bundle, "b.yaml"));
        Decision denied = decide(policy, "act-research-agent", PolicyAction.CHANGE, "friday", null);
        assertThat(denied.allowed()).isFalse();
        assertThat(denied.rules()).containsExactly("no-friday-branch");
        assertThat(decide(policy, "act-research-agent", PolicyAction.CHANGE, "monday", null).allowed()).isTrue();
    }

    @Test
    void invalidBundlesAreRefusedWithAPosition() {
        assertRefused("""
                version: 1
                groups: { a: [x] }
                rules:
                  - id: r
                    allow:
                      actors: { group: a }
                      actions: [read, fly]
                """, 7, "unknown action 'fly'");
        assertRefused("""
                version: 1
                groups: { a: [x] }
                rules:
                  - id: r
                    allow:
                      actors: { group: a }
                      actions: [invoke_query]
                      branch_scope: any
                """, 8, "takes no branch scope");
        assertRefused("""
                version: 1
                groups: { a: [x] }
                rules:
                  - id: r
                    allow:
                      actors: { group: a }
                      actions: [read]
                      target_branch_scope: protected
                """, 8, "takes branch_scope, not target_branch_scope");
        assertRefused("""
                version: 1
                groups: { a: [x] }
                rules:
                  - id: r
                    allow:
                      actors: { group: a }
                      actions: [graph_list, read]
                """, 7, "mixes the server-wide action graph_list");
        assertRefused("""
                version: 1
                groups: { a: [x] }
                rules:
                  - id: r
                    allow:
                      actors: { group: b }
                      actions: [read]
                """, 6, "unknown group 'b'");
        assertRefused("version: 2\n", 1, "version must be 1");
        assertRefused("version: 1\nrulez: []\n", 2, "unknown key 'rulez'");
        assertRefused("version: 1\ncedar: |\n  permit(principal, action, resource) when { };\n", 2, "do not parse");
        assertRefused("version: 1\ngroups: {a: [x]\n", 2, "not valid YAML");
    }

    @Test
    void hostileNamesAndShapesGetClearErrors() {
        String unicode = """
                version: 1
                groups:
                  "ревьюеры 🚀": ["актёр \\"quoted\\" ☃"]
                protected_branches: ["главная"]
                rules:
                  - id: "правило"
                    allow:
                      actors: { group: "ревьюеры 🚀" }
                      actions: [change]
                      branch_scope: protected
                """;
        CedarPolicy policy = CedarPolicy.compile(BundleReader.parse(unicode, "u.yaml"));
        assertThat(decide(policy, "актёр \"quoted\" ☃", PolicyAction.CHANGE, "главная", null).allowed()).isTrue();
        assertThat(decide(policy, "актёр \"quoted\" ☃", PolicyAction.CHANGE, "other", null).allowed()).isFalse();

        assertRefused("version: 1\ngroups:\n  g: [\"" + "a".repeat(300) + "\"]\n", 3, "longer than 256");
        assertRefused("version: 1\ngroups:\n  g: [\"a\\u0001b\"]\n", 3, "control characters");
        assertRefused("version: 1\nrules: " + "[".repeat(40) + "]".repeat(40) + "\n", 2, "nested deeper than");

        StringBuilder many = new StringBuilder("version: 1\ngroups: { a: [x] }\nrules:\n");
        for (int i = 0; i <= BundleReader.MAX_RULES; i++) {
            many.append("  - { id: r").append(i).append(", allow: { actors: { group: a }, actions: [read] } }\n");
        }
        assertRefused(many.toString(), 4, "at most " + BundleReader.MAX_RULES);
    }

    @Test
    void aThousandRulesCompileAndDecide() {
        StringBuilder big = new StringBuilder("version: 1\ngroups:\n");
        for (int i = 0; i < 1000; i++) big.append("  g").append(i).append(": [actor").append(i).append("]\n");
        big.append("protected_branches: [main]\nrules:\n");
        for (int i = 0; i < 1000; i++) {
            big.append("  - { id: r").append(i).append(", allow: { actors: { group: g").append(i)
                    .append(" }, actions: [read, change], branch_scope: unprotected } }\n");
        }
        CedarPolicy policy = CedarPolicy.compile(BundleReader.parse(big.toString(), "big.yaml"));
        assertThat(policy.size()).isEqualTo(1000);
        assertThat(decide(policy, "actor999", PolicyAction.CHANGE, "b", null).rules()).containsExactly("r999");
        assertThat(decide(policy, "actor999", PolicyAction.CHANGE, "main", null).allowed()).isFalse();
    }

    @Test
    void testCasesReportMismatches() {
        CedarPolicy policy = CedarPolicy.compile(BundleReader.parse(AGENTS, "agents.yaml"));
        List<PolicyCases.Case> cases = PolicyCases.parse("""
                version: 1
                cases:
                  - { id: ok, actor: act-research-agent, action: change, branch: feature, expect: allow }
                  - { id: wrong, actor: act-research-agent, action: branch_merge, branch: f, target_branch: main, expect: allow }
                """, "t.yaml");
        assertThat(PolicyCases.run(policy, cases)).extracting(m -> m.testCase().id()).containsExactly("wrong");
    }

    private static void assertRefused(String bundle, int line, String message) {
        assertThatThrownBy(() -> CedarPolicy.compile(BundleReader.parse(bundle, "p.yaml")))
                .isInstanceOf(ParseError.class)
                .hasMessageContaining(message)
                .satisfies(e -> assertThat(((ParseError) e).line()).as(e.getMessage()).isEqualTo(line));
    }
}

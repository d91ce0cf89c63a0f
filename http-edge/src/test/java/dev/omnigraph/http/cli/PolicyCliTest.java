package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code omnigraph policy validate|test|explain} on real bundle files. */
class PolicyCliTest {
    static final String BUNDLE = """
            version: 1
            groups:
              agents: [act-agent]
              reviewers: [act-andrew]
            protected_branches: [main]
            rules:
              - id: agents-off-main
                allow:
                  actors: { group: agents }
                  actions: [read, change]
                  branch_scope: unprotected
              - id: reviewers-merge
                allow:
                  actors: { group: reviewers }
                  actions: [branch_merge]
                  target_branch_scope: protected
            """;

    @TempDir
    Path dir;

    @Test
    void validateCountsAndRefusesWithAPosition() throws Exception {
        Path bundle = Files.writeString(dir.resolve("policy.yaml"), BUNDLE);
        CliRun ok = CliRun.ok(null, "policy", "validate", "--policy", bundle.toString(), "--print-cedar");
        assertThat(ok.out()).contains("valid: 2 group(s), 2 actor(s), 2 rule(s), 2 Cedar policies, protected branches: main")
                .contains("permit (principal in Omnigraph::Group::\"agents\"");
        assertThat(CliRun.ok(null, "policy", "validate", "--policy", bundle.toString(), "--json").json()
                .path("rules").asInt()).isEqualTo(2);

        Path bad = Files.writeString(dir.resolve("bad.yaml"), BUNDLE.replace("[branch_merge]", "[branch_merge, read]"));
        CliRun refused = CliRun.run(null, "policy", "validate", "--policy", bad.toString());
        assertThat(refused.code()).isEqualTo(1);
        assertThat(refused.err()).contains("error[parse_error]").contains("bad.yaml:16:")
                .contains("action read takes branch_scope, not target_branch_scope");
    }

    @Test
    void testExitsOneOnAMismatch() throws Exception {
        Path bundle = Files.writeString(dir.resolve("policy.yaml"), BUNDLE);
        Path good = Files.writeString(dir.resolve("good.tests.yaml"), """
                version: 1
                cases:
                  - { id: agent-writes-feature, actor: act-agent, action: change, branch: feature, expect: allow }
                  - { id: agent-not-main, actor: act-agent, action: change, branch: main, expect: deny }
                  - { id: reviewer-lands, actor: act-andrew, action: branch_merge, branch: feature, target_branch: main, expect: allow }
                """);
        assertThat(CliRun.ok(null, "policy", "test", "--policy", bundle.toString(), "--tests", good.toString()).out())
                .contains("3 of 3 case(s) passed");
        Path wrong = Files.writeString(dir.resolve("wrong.tests.yaml"), """
                version: 1
                cases:
                  - { id: agent-lands, actor: act-agent, action: branch_merge, branch: f, target_branch: main, expect: allow }
                """);
        CliRun failed = CliRun.run(null, "policy", "test", "--policy", bundle.toString(), "--tests", wrong.toString());
        assertThat(failed.code()).as(failed.toString()).isEqualTo(1);
        assertThat(failed.out()).contains("FAIL agent-lands (line 3): expected allow, got deny").contains("0 of 1");
    }

    @Test
    void explainNamesTheDecidingRule() throws Exception {
        Path bundle = Files.writeString(dir.resolve("policy.yaml"), BUNDLE);
        CliRun allow = CliRun.ok(null, "policy", "explain", "--policy", bundle.toString(), "--actor", "act-andrew",
                "--action", "branch_merge", "--branch", "feature", "--target-branch", "main");
        assertThat(allow.out()).startsWith("allow: branch_merge on graph 'default', branch 'feature', target branch 'main'")
                .contains("allowed by reviewers-merge");
        CliRun deny = CliRun.ok(null, "policy", "explain", "--policy", bundle.toString(), "--actor", "act-agent",
                "--action", "change", "--branch", "main", "--json");
        assertThat(deny.json().path("decision").asText()).isEqualTo("deny");
        assertThat(deny.json().path("reason").asText()).isEqualTo("no rule allows it");
        CliRun unknown = CliRun.run(null, "policy", "explain", "--policy", bundle.toString(), "--actor", "a",
                "--action", "fly");
        assertThat(unknown.code()).isEqualTo(1);
        assertThat(unknown.err()).contains("unknown action 'fly'");
    }

    @Test
    void directWritesAreCheckedAsTheConfiguredActor() throws Exception {
        Path bundle = Files.writeString(dir.resolve("policy.yaml"), BUNDLE);
        Path root = CliRun.seededGraph(null, dir);
        CliRun.ok(null, "branch", "create", root.toString(), "feature");
        String add = "query addPerson($name: String) { insert Person { name: $name } }";
        CliRun denied = CliRun.run(null, "--policy", bundle.toString(), "mutate", "addPerson", root.toString(), "-e", add,
                "--params", "{\"name\":\"Eve\"}", "--as", "act-agent");
        assertThat(denied.code()).as(denied.toString()).isEqualTo(1);
        assertThat(denied.err()).contains("error[forbidden]").contains("change").contains("branch 'main'");
        CliRun.ok(null, "--policy", bundle.toString(), "mutate", "addPerson", root.toString(), "-e", add,
                "--params", "{\"name\":\"Eve\"}", "--branch", "feature", "--as", "act-agent");
        CliRun anonymous = CliRun.run(null, "--policy", bundle.toString(), "mutate", "addPerson", root.toString(), "-e", add,
                "--params", "{\"name\":\"Ann\"}", "--branch", "feature");
        assertThat(anonymous.code()).as("no actor: refused").isEqualTo(1);
    }

    @Test
    void serveRefusesABadBundleOrABundleWithoutTokens() throws Exception {
        Path root = CliRun.seededGraph(null, dir);
        Path bad = Files.writeString(dir.resolve("bad.yaml"), "version: 1\ngroups: { a: [] }\n");
        CliRun refused = CliRun.run(null, "serve", root.toString(), "--port", "0", "--policy", bad.toString());
        assertThat(refused.code()).as(refused.toString()).isEqualTo(1);
        assertThat(refused.err()).contains("error[parse_error]: bad.yaml:2:").contains("has no actors");
        Path good = Files.writeString(dir.resolve("policy.yaml"), BUNDLE);
        CliRun noTokens = CliRun.run(null, "serve", root.toString(), "--port", "0", "--policy", good.toString());
        assertThat(noTokens.code()).as(noTokens.toString()).isEqualTo(1);
        assertThat(noTokens.err()).contains("error[bad_request]: a policy needs bearer tokens");
    }
}

package dev.omnigraph.http.cli;

import dev.omnigraph.http.policy.AccessRequest;
import dev.omnigraph.http.policy.BundleReader;
import dev.omnigraph.http.policy.CedarPolicy;
import dev.omnigraph.http.policy.Decision;
import dev.omnigraph.http.policy.PolicyAction;
import dev.omnigraph.http.policy.PolicyBundle;
import dev.omnigraph.http.policy.PolicyCases;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.error.BadRequest;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code omnigraph policy validate|test|explain}: check a policy bundle before a server enforces it. */
@Command(name = "policy", description = "Validate a policy bundle, run declarative cases against it, explain a decision.",
        subcommands = {PolicyCommand.Validate.class, PolicyCommand.Test.class, PolicyCommand.Explain.class})
final class PolicyCommand extends CommandGroup {

    /** The bundle flag every policy verb takes. */
    static final class BundleFlag {
        @Option(names = "--policy", required = true, paramLabel = "<bundle>", description = "The policy bundle (YAML).")
        Path bundle;

        CedarPolicy compile() {
            return CedarPolicy.compile(BundleReader.read(bundle));
        }
    }

    @Command(name = "validate", description = "Parse the bundle and compile it to Cedar; exit 1 with the positioned "
            + "error when it is invalid.")
    static final class Validate implements Callable<Integer> {
        @ParentCommand
        PolicyCommand parent;

        @picocli.CommandLine.Mixin
        BundleFlag flag;

        @Option(names = "--print-cedar", description = "Also print the Cedar policies the bundle compiles to.")
        boolean printCedar;

        @Option(names = "--json", description = "Print the counts as JSON.")
        boolean json;

        @Override
        public Integer call() {
            CedarPolicy policy = flag.compile();
            PolicyBundle bundle = policy.bundle();
            if (json) {
                parent.cli.out.println(Json.text(Json.object().put("valid", true).put("groups", bundle.groups().size())
                        .put("actors", bundle.actorCount()).put("rules", bundle.rules().size())
                        .put("cedar_policies", policy.size()).put("protected_branches", bundle.protectedBranches().size())));
            } else {
                parent.cli.out.println("valid: " + bundle.groups().size() + " group(s), " + bundle.actorCount()
                        + " actor(s), " + bundle.rules().size() + " rule(s), " + policy.size() + " Cedar polic"
                        + (policy.size() == 1 ? "y" : "ies") + ", protected branches: "
                        + (bundle.protectedBranches().isEmpty() ? "none" : String.join(", ", bundle.protectedBranches())));
            }
            if (printCedar) parent.cli.out.print(policy.cedarText());
            return OmnigraphCli.OK;
        }
    }

    @Command(name = "test", description = "Run declarative allow/deny cases against the bundle; exit 1 when any "
            + "decision differs from its expectation.")
    static final class Test implements Callable<Integer> {
        @ParentCommand
        PolicyCommand parent;

        @picocli.CommandLine.Mixin
        BundleFlag flag;

        @Option(names = "--tests", required = true, paramLabel = "<cases>", description = "The cases (YAML: version: 1, "
                + "cases: [{id, actor, action, branch?, target_branch?, graph?, expect: allow|deny}]).")
        Path tests;

        @Option(names = "--json", description = "Print {cases, failed:[{id, expected, decision, rules}]} as JSON.")
        boolean json;

        @Override
        public Integer call() {
            CedarPolicy policy = flag.compile();
            List<PolicyCases.Case> cases = PolicyCases.read(tests);
            List<PolicyCases.Mismatch> failed = PolicyCases.run(policy, cases);
            if (json) {
                ObjectNode out = Json.object().put("cases", cases.size());
                ArrayNode list = out.putArray("failed");
                for (PolicyCases.Mismatch m : failed) {
                    list.addObject().put("id", m.testCase().id()).put("expected", m.testCase().expectAllow() ? "allow" : "deny")
                            .put("decision", m.decision().allowed() ? "allow" : "deny").put("reason", m.decision().reason());
                }
                parent.cli.out.println(Json.text(out));
            } else {
                for (PolicyCases.Mismatch m : failed) {
                    parent.cli.out.println("FAIL " + m.testCase().id() + " (line " + m.testCase().line() + "): expected "
                            + (m.testCase().expectAllow() ? "allow" : "deny") + ", got "
                            + (m.decision().allowed() ? "allow" : "deny") + " — " + m.decision().reason());
                }
                parent.cli.out.println((cases.size() - failed.size()) + " of " + cases.size() + " case(s) passed");
            }
            return failed.isEmpty() ? OmnigraphCli.OK : OmnigraphCli.ERROR;
        }
    }

    @Command(name = "explain", description = "The decision for one actor and action, and the rule(s) that made it.")
    static final class Explain implements Callable<Integer> {
        @ParentCommand
        PolicyCommand parent;

        @picocli.CommandLine.Mixin
        BundleFlag flag;

        @Option(names = "--actor", required = true, paramLabel = "<actor>", description = "The actor id.")
        String actor;

        @Option(names = "--action", required = true, paramLabel = "<action>", description = "One of: read, export, "
                + "change, schema_apply, branch_create, branch_delete, branch_merge, invoke_query, admin, graph_list.")
        String action;

        @Option(names = "--branch", paramLabel = "<branch>", description = "The branch read or written (a merge's source).")
        String branch;

        @Option(names = "--target-branch", paramLabel = "<branch>", description = "The branch a merge, schema apply or "
                + "branch operation changes.")
        String targetBranch;

        @Option(names = "--graph", defaultValue = "default", paramLabel = "<graph_id>",
                description = "The graph (default: ${DEFAULT-VALUE}).")
        String graph;

        @Option(names = "--json", description = "Print {decision, rules, reason} as JSON.")
        boolean json;

        @Override
        public Integer call() {
            PolicyAction parsed = PolicyAction.parse(action).orElseThrow(() -> new BadRequest("unknown action '"
                    + action + "' (known: " + PolicyAction.names() + ")"));
            AccessRequest request = new AccessRequest(Optional.of(actor), parsed, parsed.serverWide() ? null : graph,
                    Optional.ofNullable(branch), Optional.ofNullable(targetBranch));
            Decision decision = flag.compile().decide(request);
            if (json) {
                ObjectNode out = Json.object().put("decision", decision.allowed() ? "allow" : "deny");
                ArrayNode rules = out.putArray("rules");
                decision.rules().forEach(rules::add);
                parent.cli.out.println(Json.text(out.put("reason", decision.reason())));
            } else {
                parent.cli.out.println((decision.allowed() ? "allow" : "deny") + ": " + parsed.wireName() + " on "
                        + request.resource() + " for actor '" + actor + "'");
                parent.cli.out.println("  " + decision.reason());
            }
            return OmnigraphCli.OK;
        }
    }
}

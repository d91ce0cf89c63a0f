package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code --help} on every verb and subcommand, found by walking the command tree the CLI runs (so a new verb is
 * covered without touching this test), and {@code omnigraph help <verb>}. No graph is opened: help never needs one.
 */
class CliHelpTest {
    static CliRun run(String... args) {
        return CliRun.run(null, args);
    }

    /** Every command path below the root, e.g. [query], [commit, list] (aliases and the help verb aside). */
    static List<List<String>> paths(CommandLine command, List<String> prefix) {
        List<List<String>> out = new ArrayList<>();
        Set<CommandLine> seen = new LinkedHashSet<>();
        for (CommandLine sub : command.getSubcommands().values()) {
            if (!seen.add(sub) || sub.getCommand() instanceof CommandLine.HelpCommand) continue;
            List<String> path = new ArrayList<>(prefix);
            path.add(sub.getCommandName());
            out.add(path);
            out.addAll(paths(sub, path));
        }
        return out;
    }

    @Test
    void helpOnEveryVerbAndSubcommandPrintsUsageAndExitsZero() {
        List<List<String>> paths = paths(OmnigraphCli.commandTree(), List.of());
        assertThat(paths).contains(List.of("query"), List.of("mutate"), List.of("load"), List.of("commit", "list"),
                List.of("queries", "run"));
        for (List<String> path : paths) {
            for (String flag : List.of("--help", "-h")) {
                List<String> args = new ArrayList<>(path);
                args.add(flag);
                CliRun run = run(args.toArray(String[]::new));
                assertThat(run.code()).as(args + " → " + run).isZero();
                assertThat(run.out()).as(String.join(" ", args)).contains("Usage: omnigraph " + String.join(" ", path));
                assertThat(run.err()).as(String.join(" ", args)).isEmpty();
            }
        }
    }

    @Test
    void helpAfterOtherArgumentsStillWinsOverMissingOnes() {
        CliRun run = run("mutate", "addPerson", "--help");
        assertThat(run.code()).isZero();
        assertThat(run.out()).contains("Usage: omnigraph mutate").contains("--idempotency-key");
    }

    @Test
    void helpVerbPrintsAVerbsUsage() {
        CliRun top = run("help");
        assertThat(top.code()).isZero();
        assertThat(top.out()).contains("Usage: omnigraph").contains("queries");
        CliRun verb = run("help", "query");
        assertThat(verb.code()).isZero();
        assertThat(verb.out()).contains("Usage: omnigraph query");
        CliRun unknown = run("help", "nope");
        assertThat(unknown.code()).isNotZero();
    }

    @Test
    void sharedWriteOptionsAreDeclaredOnceAndMixedIn() {
        CommandLine tree = OmnigraphCli.commandTree();
        for (String verb : List.of("mutate", "load")) {
            CommandLine.Model.CommandSpec spec = tree.getSubcommands().get(verb).getCommandSpec();
            assertThat(spec.mixins()).as(verb).containsKey("flags");
            assertThat(spec.findOption("--as")).as(verb).isNotNull();
            assertThat(spec.findOption("--json")).as(verb).isNotNull();
        }
        CommandLine.Model.CommandSpec run = tree.getSubcommands().get("queries").getSubcommands().get("run").getCommandSpec();
        assertThat(run.mixins()).containsKey("flags");
    }
}

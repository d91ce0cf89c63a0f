package dev.omnigraph.http.cli;

import dev.omnigraph.engine.MaintenanceOperations;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.index.EnsureResult;
import dev.omnigraph.http.wire.IndexShapes;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.io.PrintStream;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code omnigraph index ensure <root>}: builds the indexes the schema implies that a branch's tables lack. */
@Command(name = "index", description = "Build the indexes the schema implies.", subcommands = IndexCommand.Ensure.class)
final class IndexCommand extends CommandGroup {

    @Command(name = "ensure", description = "Build every missing index of a branch's tables as one commit (none when "
            + "nothing is missing).")
    static final class Ensure implements Callable<Integer> {
        @ParentCommand
        IndexCommand parent;

        @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
        GraphRoot root;

        @Option(names = "--branch", defaultValue = "main", description = "Branch whose tables get indexes (default: ${DEFAULT-VALUE}).")
        String branch;

        @Option(names = "--as", paramLabel = "<actor>", description = "Actor recorded on the commit.")
        String actor;

        @picocli.CommandLine.Mixin
        ProgressOption progress;

        @Option(names = "--json", description = "Print {branch, built:{table_key:[names]}, commit} as JSON.")
        boolean json;

        @Override
        public Integer call() {
            OmnigraphCli cli = parent.cli;
            Omnigraph graph = Cli.open(cli, root, OpenMode.READ_WRITE, progress.registry("index ensure", cli.err));
            EnsureResult result = graph.maintenance()
                    .ensureIndexes(new MaintenanceOperations.Target(branch, Optional.ofNullable(actor))).block();
            if (json) {
                cli.out.println(Json.text(IndexShapes.ensured(result)));
            } else {
                print(cli.out, result);
            }
            return OmnigraphCli.OK;
        }
    }

    /** The human report, also printed by {@code load --index}. */
    static void print(PrintStream out, EnsureResult result) {
        if (result.noop()) {
            out.println("indexes of " + result.branch() + " are complete: nothing to build");
            return;
        }
        result.built().forEach((table, names) -> out.println(table + "  built " + String.join(", ", names)));
        out.println("indexes of " + result.branch() + ": " + result.commit().map(GraphCommit::id).map(id -> "commit " + id)
                .orElse("no commit"));
    }
}

package dev.omnigraph.http.cli;

import dev.omnigraph.engine.MaintenanceOperations;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.maintain.OptimizeResult;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.MaintenanceShapes;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code omnigraph optimize <root> [--branch B] [--as actor] [--json]}: compacts a branch's own tables and folds
 * their indexes as one commit.
 */
@Command(name = "optimize", description = "Compact a branch's own tables (small fragments, deleted rows) and bring "
        + "their indexes up to the schema, as one commit.")
final class OptimizeCommand implements Callable<Integer> {
    @ParentCommand
    OmnigraphCli cli;

    @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
    GraphRoot root;

    @Option(names = "--branch", defaultValue = "main", description = "Branch to optimize: main's tables, or the tables "
            + "forked on the branch (tables it still inherits are main's) (default: ${DEFAULT-VALUE}).")
    String branch;

    @Option(names = "--as", paramLabel = "<actor>", description = "Actor recorded on the commit (default omnigraph:optimize).")
    String actor;

    @picocli.CommandLine.Mixin
    ProgressOption progress;

    @Option(names = "--json", description = "Print {graph_commit_id, compacted, indexed, skipped_drift, already_compact}.")
    boolean json;

    @Override
    public Integer call() {
        Omnigraph graph = Cli.open(cli, root, OpenMode.READ_WRITE, progress.registry("optimize", cli.err));
        OptimizeResult result = graph.maintenance()
                .optimize(new MaintenanceOperations.Target(branch, Optional.ofNullable(actor))).block();
        if (json) {
            cli.out.println(Json.text(MaintenanceShapes.optimize(result)));
            return OmnigraphCli.OK;
        }
        for (OptimizeResult.Compacted table : result.compacted()) {
            cli.out.println(table.tableKey() + "  v" + table.fromVersion() + " -> v" + table.toVersion() + "  fragments "
                    + table.fragmentsBefore() + " -> " + table.fragmentsAfter());
        }
        for (OptimizeResult.Indexed table : result.indexed()) {
            cli.out.println(table.tableKey() + "  indexes " + String.join(", ", table.indexes()));
        }
        for (OptimizeResult.SkippedDrift table : result.skipped()) {
            cli.err.println(table.tableKey() + "  skipped: HEAD " + table.head() + " is past its published version "
                    + table.published() + "; " + dev.omnigraph.storage.error.Conflict.UNCOVERED_DRIFT);
        }
        cli.out.println(result.commitId().map(id -> "committed " + id).orElse("nothing to compact or index")
                + " (" + result.alreadyCompact() + " table(s) already compact)");
        return OmnigraphCli.OK;
    }
}

package dev.omnigraph.http.cli;

import dev.omnigraph.engine.GraphSnapshot;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.TableInfo;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.Shapes;
import java.io.PrintStream;
import java.nio.file.Path;
import dev.omnigraph.storage.root.GraphRoot;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code omnigraph snapshot <root> [--branch b | --snapshot <commit>]}: every dataset's pinned version and entity
 * count, at a branch head or at a commit (what an external reader such as Spark opens: docs/spark.md).
 */
@Command(name = "snapshot", description = "Show the datasets of a branch head or a commit: versions and entity counts.")
final class SnapshotCommand implements Callable<Integer> {
    @ParentCommand
    OmnigraphCli cli;

    @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
    GraphRoot root;

    @Option(names = "--branch", defaultValue = "main", description = "Branch (default: ${DEFAULT-VALUE}).")
    String branch;

    @Option(names = "--snapshot", paramLabel = "<commit>",
            description = "Show the datasets as of this graph commit instead of the branch head.")
    String commit;

    @Option(names = "--json", description = "Print the snapshot as JSON.")
    boolean json;

    @Override
    public Integer call() {
        Omnigraph graph = Cli.open(cli, root, OpenMode.READ_ONLY);
        ReadTarget target = commit != null ? ReadTarget.commit(commit) : ReadTarget.branch(branch);
        GraphSnapshot snapshot = graph.snapshot(target).block();
        if (json) {
            cli.out.println(Json.text(Shapes.snapshot(snapshot)));
        } else {
            print(cli.out, graph.location(), snapshot);
        }
        return OmnigraphCli.OK;
    }

    static void print(PrintStream out, Object root, GraphSnapshot snapshot) {
        out.println("graph " + root + "  branch " + snapshot.branch() + "  manifest v" + snapshot.manifestVersion()
                + "  head " + snapshot.graphCommitId().orElse("-"));
        List<List<Object>> rows = new ArrayList<>();
        for (TableInfo table : snapshot.tables()) {
            rows.add(List.of(table.kind(), table.typeName(), table.version(), table.rowCount(), table.path()));
        }
        RowFormats.table(out, List.of("kind", "type", "version", "entities", "dataset"), rows);
    }
}

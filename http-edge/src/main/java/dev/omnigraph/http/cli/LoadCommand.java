package dev.omnigraph.http.cli;

import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.Shapes;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code omnigraph load <root> --data f.jsonl --mode append|merge|overwrite}: one file, one commit. */
@Command(name = "load", description = "Load an NDJSON file into a branch as one commit.")
final class LoadCommand implements Callable<Integer> {
    @ParentCommand
    OmnigraphCli cli;

    @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
    Path root;

    @Option(names = "--data", required = true, paramLabel = "<file>", description = "NDJSON records, one per line.")
    Path data;

    @Option(names = "--mode", required = true, paramLabel = "<mode>", description = "append, merge or overwrite.")
    String mode;

    @Option(names = "--branch", defaultValue = "main", description = "Target branch (default: ${DEFAULT-VALUE}).")
    String branch;

    @Option(names = "--as", paramLabel = "<actor>", description = "Actor recorded on the commit.")
    String actor;

    @Option(names = "--json", description = "Print the load result as JSON.")
    boolean json;

    @Override
    public Integer call() {
        LoadMode loadMode = LoadMode.parse(mode);
        if (!java.nio.file.Files.isRegularFile(data)) {
            throw new dev.omnigraph.storage.error.NotFound("file", data.toString(), "data file " + data + " does not exist");
        }
        Omnigraph graph = Cli.open(cli, root, OpenMode.READ_WRITE);
        LoadOptions options = actor == null ? LoadOptions.DEFAULT : LoadOptions.DEFAULT.actor(actor);
        WriteOutcome outcome = graph.load(branch, loadMode, data, options).block();
        if (json) {
            cli.out.println(Json.text(Shapes.load(branch, Optional.empty(), loadMode, outcome, Optional.ofNullable(actor),
                    Optional.of(graph.root().toUri().toString()))));
        } else {
            cli.out.println("loaded " + outcome.affectedNodes() + " node(s) and " + outcome.affectedEdges()
                    + " edge(s) into " + branch + " (" + loadMode.name().toLowerCase(Locale.ROOT) + "): "
                    + outcome.commit().map(GraphCommit::id).map(id -> "commit " + id).orElse("nothing changed"));
        }
        return OmnigraphCli.OK;
    }
}

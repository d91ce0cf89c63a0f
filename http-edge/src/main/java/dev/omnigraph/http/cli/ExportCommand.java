package dev.omnigraph.http.cli;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.ReadTarget;
import java.nio.file.Path;
import dev.omnigraph.storage.root.GraphRoot;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code omnigraph export <root> [--branch b] [--type T]…}: the graph as NDJSON on stdout, in the load format. */
@Command(name = "export", description = "Write a branch's entities as NDJSON (the load format) to stdout.")
final class ExportCommand implements Callable<Integer> {
    @ParentCommand
    OmnigraphCli cli;

    @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
    GraphRoot root;

    @Option(names = "--branch", defaultValue = "main", description = "Branch (default: ${DEFAULT-VALUE}).")
    String branch;

    @Option(names = "--type", paramLabel = "<T>", description = "Only this node or edge type (repeatable).")
    List<String> types;

    @Option(names = "--json", description = "Accepted for symmetry: the output is always NDJSON.")
    boolean json;

    @Override
    public Integer call() {
        Omnigraph graph = Cli.open(cli, root, OpenMode.READ_ONLY);
        var selected = types == null ? new LinkedHashSet<String>() : new LinkedHashSet<>(types);
        // Printed on this thread, with the engine's demand following the console.
        for (String line : Cli.consume(graph.export(ReadTarget.branch(branch), selected))) {
            cli.out.println(line);
        }
        return OmnigraphCli.OK;
    }
}

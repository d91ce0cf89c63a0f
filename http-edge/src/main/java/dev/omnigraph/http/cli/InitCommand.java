package dev.omnigraph.http.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.GraphSnapshot;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.Shapes;
import java.nio.file.Path;
import dev.omnigraph.storage.root.GraphRoot;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code omnigraph init --schema s.pg <root>}: a new graph, refused where one already exists. */
@Command(name = "init", description = "Create a new graph at <root> from a .pg schema.")
final class InitCommand implements Callable<Integer> {
    @ParentCommand
    OmnigraphCli cli;

    @Option(names = "--schema", required = true, paramLabel = "<pg>", description = "The .pg schema file.")
    Path schema;

    @Parameters(index = "0", paramLabel = "<root>", description = "Directory, file:// or s3://bucket/prefix URI of the new graph.")
    GraphRoot root;

    @Option(names = "--json", description = "Print the new graph's snapshot as JSON.")
    boolean json;

    @Override
    public Integer call() {
        String source = Cli.read(schema, "schema");
        Omnigraph graph = cli.opened(Omnigraph.at(root).services(cli.services()).init(source).block());
        GraphSnapshot snapshot = graph.snapshot(ReadTarget.main()).block();
        if (json) {
            ObjectNode out = Shapes.snapshot(snapshot);
            out.put("uri", graph.location().displayUri());
            cli.out.println(Json.text(out));
        } else {
            long nodes = snapshot.tables().stream().filter(t -> t.kind().equals("node")).count();
            cli.out.println("initialized graph at " + graph.location() + ": " + nodes + " node type(s), "
                    + (snapshot.tables().size() - nodes) + " edge type(s); genesis commit "
                    + snapshot.graphCommitId().orElse("-"));
        }
        return OmnigraphCli.OK;
    }
}

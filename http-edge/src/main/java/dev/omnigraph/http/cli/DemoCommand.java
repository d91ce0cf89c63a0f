package dev.omnigraph.http.cli;

import dev.omnigraph.engine.GraphSnapshot;
import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.QueryOutput;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.http.server.BearerTokens;
import dev.omnigraph.http.server.OmnigraphServer;
import dev.omnigraph.http.server.ServerLimits;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.root.GraphRoot;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import reactor.core.publisher.Flux;

/**
 * The quickstart: creates a demo graph from the schema and NDJSON shipped in the jar (if the root holds none
 * yet), loads it (merge, so running twice is harmless), runs a mutation and a query, and prints what each step
 * did. With {@code --serve} it then serves the graph on loopback.
 */
@Command(name = "demo", description = "Quickstart: build a small demo graph, mutate it, query it (and optionally serve it).")
final class DemoCommand implements Callable<Integer> {
    private static final String RESOURCES = "/dev/omnigraph/http/demo/";

    @ParentCommand
    OmnigraphCli cli;

    @Option(names = "--root", defaultValue = "demo-graph", description = "Directory of the demo graph (default: ${DEFAULT-VALUE}).")
    Path root;

    @Option(names = "--serve", description = "Serve the demo graph on loopback afterwards (until Ctrl-C).")
    boolean serve;

    @Option(names = "--port", defaultValue = "8080", description = "Port for --serve (default: ${DEFAULT-VALUE}).")
    int port;

    @Override
    public Integer call() {
        PrintStream out = cli.out;
        String schema = resource("schema.pg");
        String queries = resource("queries.gq");
        byte[] data = resource("data.jsonl").getBytes(StandardCharsets.UTF_8);

        Omnigraph graph;
        if (Files.isDirectory(root.resolve("__manifest"))) {
            graph = Cli.open(cli, new GraphRoot.Local(root), OpenMode.READ_WRITE);
            out.println("1. graph exists at " + graph.root() + " (reusing it)");
        } else {
            graph = cli.opened(Omnigraph.at(root).services(cli.services()).init(schema).block());
            out.println("1. init: created graph at " + graph.root() + " from the demo schema (Person, Company, Knows, WorksAt)");
        }

        WriteOutcome loaded = graph.load("main", LoadMode.MERGE, Flux.just(ByteBuffer.wrap(data)), LoadOptions.DEFAULT.actor("demo")).block();
        out.println("2. load (merge): " + loaded.affectedNodes() + " node(s), " + loaded.affectedEdges() + " edge(s); "
                + commitText(loaded));

        WriteOutcome added = graph.mutate("main", queries, "addPerson", Map.of("name", "Eve", "age", 33, "city", "Lisbon"),
                WriteOptions.DEFAULT.actor("demo")).block();
        out.println("3. mutate addPerson(Eve, 33, Lisbon): " + added.affectedNodes() + " node(s); " + commitText(added));

        QueryOutput result = graph.query(ReadTarget.main(), queries, "employees", Map.of()).block();
        List<String> columns = result.columns().stream().map(QueryOutput.Column::name).toList();
        List<List<Object>> rows = new ArrayList<>();
        Cli.consume(result.rows()).forEach(rows::add);
        out.println("4. query employees (served from commit " + result.graphCommitId().orElse("-") + "):");
        RowFormats.table(out, columns, rows);

        GraphSnapshot snapshot = graph.snapshot(ReadTarget.main()).block();
        out.println("5. snapshot:");
        SnapshotCommand.print(out, graph.root(), snapshot);
        List<GraphCommit> commits = graph.commits("main").take(5).collectList().block();
        out.println("6. latest commits on main:");
        for (GraphCommit c : commits) {
            out.println("   " + c.id() + "  " + c.operation() + c.actorId().map(a -> "  by " + a).orElse(""));
        }

        String rootArg = root.toString();
        out.println();
        out.println("next:");
        out.println("  ./bin/omnigraph query employees " + rootArg + " -e '<gq source>'   # or --query file.gq");
        out.println("  ./bin/omnigraph serve " + rootArg + "   # then: curl http://127.0.0.1:8080/snapshot");
        if (!serve) return OmnigraphCli.OK;
        OmnigraphServer.Config config = new OmnigraphServer.Config(graph.root(), OmnigraphServer.LOOPBACK, port,
                BearerTokens.none(), ServerLimits.DEFAULT);
        return ServeCommand.serve(cli.services(), config, out, false);
    }

    private static String commitText(WriteOutcome outcome) {
        return outcome.commit().map(c -> "commit " + c.id()).orElse("nothing changed");
    }

    private static String resource(String name) {
        try (InputStream in = DemoCommand.class.getResourceAsStream(RESOURCES + name)) {
            if (in == null) throw new IllegalStateException(RESOURCES + name + " is missing from the jar");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

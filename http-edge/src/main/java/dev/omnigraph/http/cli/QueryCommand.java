package dev.omnigraph.http.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.QueryOutput;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.query.QueryDecl;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.QuerySources;
import dev.omnigraph.http.wire.Shapes;
import java.nio.file.Path;
import dev.omnigraph.storage.root.GraphRoot;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code omnigraph query <name> <root> --query f.gq | -e '…'}: a read query on one pinned snapshot. */
@Command(name = "query", aliases = "read", description = "Run a read query against a branch head or a commit.")
final class QueryCommand implements Callable<Integer> {
    enum Format { table, json, jsonl, csv }

    @ParentCommand
    OmnigraphCli cli;

    @Parameters(index = "0", paramLabel = "<name>", description = "The query to run (declared in the source).")
    String name;

    @Parameters(index = "1", paramLabel = "<root>", description = "The graph root.")
    GraphRoot root;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Cli.Source source;

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    Cli.Params params;

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    Target target;

    static final class Target {
        @Option(names = "--branch", description = "Read this branch's head (default main).")
        String branch;

        @Option(names = "--snapshot", paramLabel = "<commit_id>", description = "Read the graph as of this commit.")
        String snapshot;
    }

    @Option(names = "--format", defaultValue = "table", description = "table, json, jsonl or csv (default: ${DEFAULT-VALUE}).")
    Format format;

    @Option(names = "--json", description = "Same as --format json: the full envelope, with graph_commit_id.")
    boolean json;

    @ArgGroup(exclusive = false, multiplicity = "0..1", heading = "Query budget:%n")
    QueryLimitOptions limits;

    @Override
    public Integer call() {
        String text = source.text();
        QueryDecl decl = QuerySources.pickRead(text, name);
        ReadTarget readTarget = target == null || (target.branch == null && target.snapshot == null) ? ReadTarget.main()
                : target.snapshot != null ? ReadTarget.commit(target.snapshot) : ReadTarget.branch(target.branch);
        Omnigraph graph = Cli.open(cli, root, OpenMode.READ_ONLY);
        QueryOutput output = graph.query(readTarget, text, decl.name(), Cli.Params.of(params),
                QueryLimitOptions.of(limits, graph.queryLimits())).block();
        print(cli, output, readTarget, json ? Format.json : format);
        return OmnigraphCli.OK;
    }

    /** Prints a query's result in {@code format} (consuming its rows on this, the CLI's main, thread). */
    static void print(OmnigraphCli cli, QueryOutput output, ReadTarget readTarget, Format format) {
        List<String> columns = output.columns().stream().map(QueryOutput.Column::name).toList();
        List<List<Object>> rows = new ArrayList<>();
        // Consumed on this thread: printing is blocking I/O and must not happen on a reactive thread.
        Cli.consume(output.rows()).forEach(rows::add);
        switch (format) {
            case json -> {
                ObjectNode out = Json.object();
                out.put("query_name", output.queryName());
                out.set("target", Shapes.target(readTarget));
                ArrayNode cols = out.putArray("columns");
                columns.forEach(cols::add);
                ArrayNode list = out.putArray("rows");
                rows.forEach(row -> list.add(Json.row(columns, row)));
                out.put("row_count", rows.size());
                out.put("graph_commit_id", output.graphCommitId().orElse(null));
                cli.out.println(Json.pretty(out));
            }
            case jsonl -> {
                // As upstream: a leading metadata line, then one object per row.
                ObjectNode meta = Json.object();
                meta.put("kind", "metadata");
                meta.put("query_name", output.queryName());
                meta.set("target", Shapes.target(readTarget));
                meta.put("graph_commit_id", output.graphCommitId().orElse(null));
                columns.forEach(meta.putArray("columns")::add);
                meta.put("row_count", rows.size());
                cli.out.println(Json.text(meta));
                rows.forEach(row -> cli.out.println(Json.text(Json.row(columns, row))));
            }
            case csv -> RowFormats.csv(cli.out, columns, rows);
            case table -> {
                RowFormats.table(cli.out, columns, rows);
                cli.out.println("(" + rows.size() + " row" + (rows.size() == 1 ? "" : "s") + ")");
            }
        }
    }
}

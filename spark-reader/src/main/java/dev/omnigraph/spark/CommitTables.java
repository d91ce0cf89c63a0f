package dev.omnigraph.spark;

import dev.omnigraph.engine.GraphSnapshot;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.TableInfo;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.NotFound;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * The tables of one graph commit, each a Lance dataset and the version the commit pins, for a reader outside the
 * engine (Apache Spark through the Lance Spark connector; docs/spark.md). Built from the engine's public snapshot
 * ({@link Omnigraph#snapshot}), so a commit id names exactly what a query at that commit reads; the versions stay
 * readable as long as cleanup keeps that commit (docs/user-guide.md, cleanup).
 */
public record CommitTables(String graphCommitId, String branch, List<PinnedTable> tables) {
    public CommitTables {
        Objects.requireNonNull(graphCommitId, "graphCommitId");
        Objects.requireNonNull(branch, "branch");
        tables = List.copyOf(tables);
    }

    /** The tables {@code target} (a commit, or a branch's head) reads in {@code graph}. */
    public static Mono<CommitTables> of(Omnigraph graph, ReadTarget target) {
        String rootUri = graph.location().uri();
        return graph.snapshot(target).map(snapshot -> from(rootUri, snapshot));
    }

    /**
     * Opens the graph at {@code root} read-only, lists the tables of {@code target}, and closes it again (also when
     * the listing fails or is cancelled).
     */
    public static Mono<CommitTables> read(URI root, ReadTarget target) {
        return Mono.usingWhen(Omnigraph.at(root).open(OpenMode.READ_ONLY), graph -> of(graph, target),
                Omnigraph::closeAsync, (graph, failure) -> graph.closeAsync(), Omnigraph::closeAsync);
    }

    /** The table of node type {@code typeName}. */
    public PinnedTable node(String typeName) {
        return find("node", typeName);
    }

    /** The table of edge type {@code typeName}. */
    public PinnedTable edge(String typeName) {
        return find("edge", typeName);
    }

    static CommitTables from(String rootUri, GraphSnapshot snapshot) {
        String base = rootUri.endsWith("/") ? rootUri : rootUri + "/";
        List<PinnedTable> out = new ArrayList<>();
        for (TableInfo table : snapshot.tables()) {
            if (table.lanceBranch().isPresent()) {
                // A table written on a graph branch lives on a Lance branch ref of its dataset, which the Lance
                // Spark connector 0.4 cannot select: refuse rather than hand over main's rows under its name.
                throw new BadRequest("table " + table.tableKey() + " of branch " + snapshot.branch()
                        + " is on Lance branch '" + table.lanceBranch().get()
                        + "', which the Lance Spark connector cannot read; merge the branch and read main");
            }
            out.add(new PinnedTable(table.tableKey(), table.kind(), table.typeName(), base + table.path(),
                    table.version(), table.rowCount()));
        }
        String commit = snapshot.graphCommitId()
                .orElseThrow(() -> new NotFound("commit", snapshot.branch(), "branch " + snapshot.branch()
                        + " has no graph commit yet"));
        return new CommitTables(commit, snapshot.branch(), out);
    }

    private PinnedTable find(String kind, String typeName) {
        return tables.stream().filter(t -> t.kind().equals(kind) && t.typeName().equals(typeName)).findFirst()
                .orElseThrow(() -> new NotFound(kind, typeName, "no " + kind + " type " + typeName + " at commit "
                        + graphCommitId));
    }
}

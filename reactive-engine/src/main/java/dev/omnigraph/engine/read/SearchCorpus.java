package dev.omnigraph.engine.read;

import dev.omnigraph.engine.query.ReadPlan;
import dev.omnigraph.engine.read.search.CorpusCache;
import dev.omnigraph.engine.read.search.CorpusStats;
import dev.omnigraph.engine.read.search.Ranker;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * BM25 corpus statistics for one query run: the table a ranked variable is bound to, read at the version the
 * pinned state publishes, cached per table version in the graph's {@link CorpusCache}. A miss scans the whole
 * column once (exact statistics; an inverted index can later supply them instead).
 */
final class SearchCorpus implements Ranker.Corpus {
    private final TableReader reader;
    private final CorpusCache cache;
    private final Map<String, CatalogTable> tables = new HashMap<>();

    SearchCorpus(TableReader reader, CorpusCache cache, ReadPlan plan) {
        this.reader = reader;
        this.cache = cache;
        for (ReadPlan.NodeVar n : plan.match().nodes()) tables.put(n.name(), n.table());
        for (ReadPlan.Traversal t : plan.match().traversals())
            if (t.edgeVariable() != null) tables.put(t.edgeVariable(), t.edge());
    }

    @Override
    public Mono<CorpusStats> stats(String variable, String column) {
        CatalogTable table = tables.get(variable);
        TableEntry e = reader.entry(table);
        CorpusCache.Key key = new CorpusCache.Key(e.location(), e.lanceBranch().orElse(""), e.version(), column);
        return cache.get(key, () -> Mono.defer(() -> {
            CorpusStats.Builder builder = new CorpusStats.Builder(table.typeName() + "." + column);
            return reader.batches(table, null, List.of("id", column))
                    .doOnNext(rows -> rows.forEach(row -> builder.add((String) row.get(column))))
                    .then(Mono.fromCallable(builder::build));
        }));
    }
}

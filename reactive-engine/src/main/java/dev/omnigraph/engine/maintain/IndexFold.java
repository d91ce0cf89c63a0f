package dev.omnigraph.engine.maintain;

import dev.omnigraph.engine.index.IndexPlan;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.storage.IndexSpec;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import java.util.List;
import java.util.function.IntFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Optimize's index step: every index a table's schema implies must exist and cover every fragment. A compaction
 * keeps indexed and unindexed fragments apart (Lance remaps an index only over groups it fully covered), so the
 * fragments written after an index was built stay unindexed however often the table is compacted; Java 0.39 has
 * no incremental index update, so such an index is rebuilt whole (create with replace) and a missing one is
 * created. Each build lands exactly one version after the previous one and changes no fragment, which is how
 * recovery recognises them without reading their transactions.
 */
final class IndexFold {
    /** One index to build: {@code rebuild} when the table has it already (partial), else it is created. */
    record Build(IndexSpec spec, boolean rebuild) {
    }

    private final TableStorage tables;

    IndexFold(TableStorage tables) {
        this.tables = tables;
    }

    /** What {@code table} needs at {@code version} of {@code ref}: missing indexes, and partial ones rebuilt. */
    Mono<List<Build>> plan(CatalogTable table, TableRef ref, long version, long rowCount) {
        if (rowCount == 0) {
            return Mono.just(List.of()); // an index of nothing covers nothing; the first optimize with rows builds it
        }
        return Mono.zip(tables.indexNames(ref, version), tables.partialIndexes(ref, version))
                .map(found -> IndexPlan.required(table, rowCount).stream()
                        .filter(spec -> !found.getT1().contains(spec.name()) || found.getT2().contains(spec.name()))
                        .map(spec -> new Build(spec, found.getT1().contains(spec.name())))
                        .toList());
    }

    /** Runs {@code builds} on {@code ref}, whose latest version is {@code from}; emits the last version. */
    Mono<Long> run(TableRef ref, long from, List<Build> builds, IntFunction<Mono<Void>> afterEach) {
        return Flux.range(0, builds.size())
                .concatMap(i -> {
                    Build build = builds.get(i);
                    Mono<Long> landed = build.rebuild() ? tables.rebuildIndex(ref, from + i, build.spec())
                            : tables.createIndex(ref, from + i, build.spec());
                    return landed.flatMap(version -> afterEach.apply(i + 1).thenReturn(version));
                })
                .then(Mono.just(from + builds.size()));
    }
}

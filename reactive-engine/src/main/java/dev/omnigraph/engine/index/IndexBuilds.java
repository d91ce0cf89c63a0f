package dev.omnigraph.engine.index;

import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.storage.IndexSpec;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import java.util.List;
import java.util.function.IntFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The reusable "ensure indexes for this table" step: find the indexes a table lacks at a version, and build them
 * one after the other, each landing exactly one version after the previous (checked by version number and index
 * name, never by reading a transaction). It publishes nothing and arms no intent: a writer that calls it (the
 * EnsureIndices writer, or a maintenance writer after compaction) holds the table's gates and covers the builds
 * with its own sidecar, recording {@link IndexSpec#name()}s in plan order so recovery can recognise them.
 */
public final class IndexBuilds {
    private final TableStorage tables;

    public IndexBuilds(TableStorage tables) {
        this.tables = tables;
    }

    /** The indexes {@code table} lacks at {@code version} of {@code ref} (which has {@code rowCount} rows). */
    public Mono<List<IndexSpec>> missing(CatalogTable table, TableRef ref, long version, long rowCount) {
        return tables.indexNames(ref, version).map(existing -> IndexPlan.missing(table, rowCount, existing));
    }

    /** One index to build: {@code rebuild} when the table has it already but it misses fragments, else created. */
    public record Build(IndexSpec spec, boolean rebuild) {
    }

    /**
     * An existing index is rebuilt only when the fragments it does not cover hold more than this share of the
     * table's rows. Below it the index is left alone: Lance scans the uncovered fragments (answers stay exact, a
     * little slower), and versions kept for time travel share the index files instead of each round pinning a
     * second copy (Java 0.39 has no incremental index update: a rebuild writes the whole index anew).
     */
    public static final double REBUILD_UNINDEXED_SHARE = 0.2;

    /**
     * What a maintenance writer must build on {@code table} at {@code version} of {@code ref} after compacting it:
     * the missing indexes, and those whose uncovered fragments hold more than {@link #REBUILD_UNINDEXED_SHARE} of
     * the rows, rebuilt whole (a compaction keeps indexed and unindexed fragments apart). An empty table needs none
     * (an index of nothing covers nothing; the first optimize with rows builds it).
     */
    public Mono<List<Build>> stale(CatalogTable table, TableRef ref, long version, long rowCount) {
        if (rowCount == 0) {
            return Mono.just(List.of());
        }
        return Mono.zip(tables.indexNames(ref, version), tables.partialIndexes(ref, version, REBUILD_UNINDEXED_SHARE))
                .map(found -> IndexPlan.required(table, rowCount).stream()
                        .filter(spec -> !found.getT1().contains(spec.name()) || found.getT2().contains(spec.name()))
                        .map(spec -> new Build(spec, found.getT1().contains(spec.name())))
                        .toList());
    }

    /**
     * Builds {@code specs} in order on {@code ref}, whose latest version must be {@code expectedVersion}; emits the
     * final version ({@code expectedVersion + specs.size()}). {@code afterEach} runs after the n-th build (1-based
     * within this call), e.g. a failpoint.
     */
    public Mono<Long> build(TableRef ref, long expectedVersion, List<IndexSpec> specs, IntFunction<Mono<Void>> afterEach) {
        return run(ref, expectedVersion, specs.stream().map(spec -> new Build(spec, false)).toList(), afterEach);
    }

    /** As {@link #build}, creating or rebuilding each index as {@code builds} says. */
    public Mono<Long> run(TableRef ref, long expectedVersion, List<Build> builds, IntFunction<Mono<Void>> afterEach) {
        return Flux.range(0, builds.size())
                .concatMap(i -> {
                    Build next = builds.get(i);
                    Mono<Long> landed = next.rebuild() ? tables.rebuildIndex(ref, expectedVersion + i, next.spec())
                            : tables.createIndex(ref, expectedVersion + i, next.spec());
                    return landed.flatMap(version -> afterEach.apply(i + 1).thenReturn(version));
                })
                .then(Mono.just(expectedVersion + builds.size()));
    }
}

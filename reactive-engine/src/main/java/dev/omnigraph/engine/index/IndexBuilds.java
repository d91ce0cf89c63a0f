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

    /**
     * Builds {@code specs} in order on {@code ref}, whose latest version must be {@code expectedVersion}; emits the
     * final version ({@code expectedVersion + specs.size()}). {@code afterEach} runs after the n-th build (1-based
     * within this call), e.g. a failpoint.
     */
    public Mono<Long> build(TableRef ref, long expectedVersion, List<IndexSpec> specs, IntFunction<Mono<Void>> afterEach) {
        return Flux.range(0, specs.size())
                .concatMap(i -> tables.createIndex(ref, expectedVersion + i, specs.get(i))
                        .flatMap(version -> afterEach.apply(i + 1).thenReturn(version)))
                .then(Mono.just(expectedVersion + specs.size()));
    }
}

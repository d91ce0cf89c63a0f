package dev.omnigraph.engine.index;

import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.IndexPlan;
import dev.omnigraph.storage.IndexSpec;
import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.TableStorage;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * The reusable "indexes for this table" steps: which indexes a table's schema implies that it lacks (what
 * {@code index ensure} builds: existence-gated, as the reference's is) or that do not cover its fragments (what
 * optimize folds in), and the staging of that work as ONE CreateIndex transaction on a snapshot. It commits,
 * arms and publishes nothing: the writer that calls it holds the table's gates, names the transaction in its
 * sidecar and commits it at the read version + 1 like any staged write.
 */
public final class IndexBuilds {
    private final TableStorage tables;

    public IndexBuilds(TableStorage tables) {
        this.tables = tables;
    }

    /**
     * The indexes {@code table} lacks at {@code version} of {@code ref} (which has {@code rowCount} rows) that can be
     * built there, and those built with other settings than today's (rebuilt). A table without rows lacks none
     * (nothing to index; the first write that adds rows builds them), nor does a text column that is all NULL or a
     * vector column with fewer vectors than partitions.
     */
    public Mono<List<IndexSpec>> missing(CatalogTable table, TableRef ref, long version, long rowCount) {
        if (rowCount == 0) {
            return Mono.just(List.of());
        }
        return tables.indexesToCreate(ref, version, IndexPlan.required(table, rowCount));
    }

    /**
     * What a maintenance writer folds in on {@code table} at {@code version} of {@code ref}: the missing indexes, the
     * ones whose segments miss fragments (a delta segment each), and a vector index a fifth of whose rows it does not
     * cover (retrained whole). Empty for a table without rows.
     */
    public Mono<List<IndexSpec>> stale(CatalogTable table, TableRef ref, long version, long rowCount) {
        if (rowCount == 0) {
            return Mono.just(List.of());
        }
        return tables.indexWork(ref, version, IndexPlan.required(table, rowCount));
    }

    /** Stages {@code specs}' work on {@code snapshot} as one CreateIndex transaction; empty when none is needed. */
    public Mono<Optional<StagedHandle>> stage(TableSnapshot snapshot, List<IndexSpec> specs, Map<String, String> properties) {
        return specs.isEmpty() ? Mono.just(Optional.empty()) : tables.stageIndexes(snapshot, specs, properties);
    }
}

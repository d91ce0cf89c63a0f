package dev.omnigraph.storage;

import org.lance.compaction.Compaction;
import org.lance.compaction.CompactionOptions;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import reactor.core.publisher.Mono;

/** The maintenance part of {@link LanceTableStorage}: fragment compaction and version GC. */
final class LanceMaintenance {
    private final LanceDatasets datasets;

    LanceMaintenance(LanceDatasets datasets) {
        this.datasets = datasets;
    }

    /** A tiered compaction ({@link TieredCompaction}): settled fragments are left alone. */
    Mono<Optional<Long>> compactTiered(TableRef ref) {
        CompactionOptions options = TableHistory.COMPACTION;
        return datasets.with("compact", ref, OptionalLong.empty(), (dataset, allocator) -> {
            List<CompactionTask> tasks = TieredCompaction.plan(dataset, options);
            if (tasks.isEmpty()) {
                return Optional.<Long>empty();
            }
            List<RewriteResult> rewritten = new ArrayList<>();
            for (CompactionTask task : tasks) {
                rewritten.add(task.execute(dataset));
            }
            Compaction.commitCompaction(dataset, rewritten, options); // moves this dataset object to the new version
            return Optional.of(dataset.version());
        });
    }

    Mono<Integer> compactionTasks(TableRef ref) {
        return datasets.with("compactionTasks", ref, OptionalLong.empty(), (dataset, allocator) ->
                TieredCompaction.plan(dataset, TableHistory.COMPACTION).size());
    }

    Mono<VersionGcPlan> planVersionGc(ObjectStore root, String location,
                                      Map<Optional<String>, VersionRetention> retention, Instant orphanCutoff) {
        return new LanceVersionGc(datasets).plan(root, location, Map.copyOf(retention), orphanCutoff);
    }

    Mono<Long> applyVersionGc(ObjectStore root, VersionGcPlan plan, VersionGcPlan.Phase phase) {
        // A kept dataset handle never outlives its version: closed before any of the version's files go.
        return datasets.storage().call(() -> {
            datasets.handles().drop(plan.path(), plan.manifests().stream().map(VersionGcPlan.Victim::version).toList());
            return Boolean.TRUE;
        }).then(LanceVersionGc.apply(root, plan, phase));
    }
}

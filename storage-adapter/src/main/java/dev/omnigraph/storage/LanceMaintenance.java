package dev.omnigraph.storage;

import com.lancedb.lance.compaction.Compaction;
import com.lancedb.lance.compaction.CompactionOptions;
import com.lancedb.lance.compaction.CompactionPlan;
import com.lancedb.lance.compaction.CompactionTask;
import com.lancedb.lance.compaction.RewriteResult;
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

    Mono<Optional<Long>> compactFragments(TableRef ref, CompactionOptions options) {
        return datasets.with("compact", ref, OptionalLong.empty(), (dataset, allocator) -> {
            CompactionPlan plan = Compaction.planCompaction(dataset, options);
            if (plan.getCompactionTasks().isEmpty()) {
                return Optional.<Long>empty();
            }
            List<RewriteResult> rewritten = new ArrayList<>();
            for (CompactionTask task : plan.getCompactionTasks()) {
                rewritten.add(task.execute(dataset));
            }
            Compaction.commitCompaction(dataset, rewritten, options); // moves this dataset object to the new version
            return Optional.of(dataset.version());
        });
    }

    Mono<Integer> compactionTasks(TableRef ref) {
        return datasets.with("compactionTasks", ref, OptionalLong.empty(), (dataset, allocator) ->
                Compaction.planCompaction(dataset, TableHistory.COMPACTION).getCompactionTasks().size());
    }

    Mono<VersionGcPlan> planVersionGc(String path, Map<Optional<String>, VersionRetention> retention,
                                      Instant orphanCutoff) {
        return datasets.withAllocator("planVersionGc", TableRef.main(path),
                allocator -> LanceVersionGc.plan(allocator, path, Map.copyOf(retention), orphanCutoff));
    }

    Mono<Long> applyVersionGc(VersionGcPlan plan, VersionGcPlan.Phase phase) {
        return datasets.storage().call(() -> {
            StorageScheduler.requireStorageThread("applyVersionGc");
            try {
                return LanceVersionGc.apply(plan, phase);
            } catch (Exception e) {
                throw LanceFailures.translate("applyVersionGc", TableRef.main(plan.path()), e);
            }
        });
    }
}

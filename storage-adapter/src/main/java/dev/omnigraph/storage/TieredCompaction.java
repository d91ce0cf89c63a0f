package dev.omnigraph.storage;

import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.compaction.Compaction;
import org.lance.compaction.CompactionOptions;
import org.lance.compaction.CompactionPlan;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.TaskData;
import java.util.ArrayList;
import java.util.List;

/**
 * The compaction plan of a table: Lance's plan (which bins consecutive small fragments and keeps indexed and
 * unindexed fragments apart), with every <em>settled</em> fragment taken out of its bins. A fragment is settled when
 * it holds at least {@link #settledRows} rows and has no deletions worth materialising; the rest of a bin is split
 * into runs of consecutive unsettled fragments, and a run becomes a task when it merges two or more fragments or
 * materialises deletions. So a compaction rewrites what was appended since the last one, not the table: the
 * versions kept for time travel before it share the settled fragments (and their index) with the versions after.
 * The threshold grows with the table (a sixteenth of its rows, at least {@link #FLOOR_ROWS}), so fragments stay
 * few: once the table outgrows them, settled fragments become unsettled again and merge (size tiers). It stops
 * growing at {@link #CEILING_ROWS}, the most rows a compaction writes into one fragment: a change to one row then
 * makes a diff read the live row ids of at most that many rows, whatever the table's size (see
 * {@link LanceFragmentDiff}).
 */
final class TieredCompaction {
    /** A fragment of at least this many rows is never rewritten only to merge it. */
    static final long FLOOR_ROWS = 512;
    /** Settled fragments are at least 1/TIERS of the table, so there are about TIERS of them at most. */
    static final long TIERS = 16;
    /** The largest fragment a compaction writes (Lance's own default is 1,048,576). */
    static final long CEILING_ROWS = 1L << 17;

    private TieredCompaction() {
    }

    static long settledRows(long tableRows) {
        return Math.min(CEILING_ROWS, Math.max(FLOOR_ROWS, tableRows / TIERS));
    }

    /** The tasks to run on {@code dataset}'s current version (empty: nothing to compact). */
    static List<CompactionTask> plan(Dataset dataset, CompactionOptions options) {
        CompactionPlan lance = Compaction.planCompaction(dataset, options);
        if (lance.getCompactionTasks().isEmpty()) {
            return List.of();
        }
        long settled = settledRows(dataset.getFragments().stream().mapToLong(f -> f.metadata().getNumRows()).sum());
        float materialize = options.getMaterializeDeletionsThreshold().orElse(0.1f);
        List<CompactionTask> tasks = new ArrayList<>();
        for (CompactionTask task : lance.getCompactionTasks()) {
            List<FragmentMetadata> run = new ArrayList<>();
            for (FragmentMetadata fragment : task.getTaskData().getFragments()) {
                if (!deletionsToMaterialize(fragment, materialize) && fragment.getPhysicalRows() >= settled) {
                    addRun(tasks, run, lance.getReadVersion(), options, materialize);
                    run = new ArrayList<>();
                } else {
                    run.add(fragment);
                }
            }
            addRun(tasks, run, lance.getReadVersion(), options, materialize);
        }
        return List.copyOf(tasks);
    }

    private static void addRun(List<CompactionTask> tasks, List<FragmentMetadata> run, long readVersion,
                               CompactionOptions options, float materialize) {
        if (run.size() > 1 || (run.size() == 1 && deletionsToMaterialize(run.get(0), materialize))) {
            tasks.add(new CompactionTask(new TaskData(List.copyOf(run)), readVersion, options));
        }
    }

    private static boolean deletionsToMaterialize(FragmentMetadata fragment, float threshold) {
        return fragment.getPhysicalRows() > 0 && fragment.getNumDeletions() > threshold * fragment.getPhysicalRows();
    }
}

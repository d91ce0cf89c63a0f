package dev.omnigraph.storage;

import dev.omnigraph.storage.FragmentDiff.RowPicks;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * {@link TableStorage#fragmentDiff} over two open datasets. Fragment metadata says most of it: a fragment id both
 * sides hold with equal metadata holds the same rows. A fragment whose data files are the same but whose deletion
 * vector differs (a delete, or the old image of an update) changed only by rows it lost or regained: those rows are
 * found by reading each side's live row ids (no column data) and picked one by one, so a one-row update of a
 * million-row fragment reads one row per side, not the fragment. Only when the picks would pass the budget is such
 * a fragment read whole instead.
 */
final class LanceFragmentDiff {
    private static final String ROW_ID = "_rowid";

    private LanceFragmentDiff() {
    }

    /** A fragment both sides hold with the same data files, and how many rows its deletions say changed at least. */
    private record Trimmed(int id, long deletionsMoved) {
    }

    static FragmentDiff between(Dataset before, Dataset after, boolean sameDataset, int maxPickedRows) {
        Map<Integer, FragmentMetadata> was = new LinkedHashMap<>();
        before.getFragments().forEach(fragment -> was.put(fragment.getId(), fragment.metadata()));
        List<Integer> beforeOnly = new ArrayList<>();
        List<Integer> afterOnly = new ArrayList<>();
        java.util.Set<Integer> paired = new java.util.HashSet<>(); // ids the after side holds with the same data files
        List<Trimmed> trimmed = new ArrayList<>();
        for (Fragment fragment : after.getFragments()) {
            FragmentMetadata now = fragment.metadata();
            FragmentMetadata prior = sameDataset ? was.get(now.getId()) : null;
            // Lance defines equals but not hashCode on its metadata: compared one by one, never hashed.
            if (now.equals(prior)) {
                paired.add(now.getId());
            } else if (prior != null && sameDataFiles(prior, now)) {
                paired.add(now.getId());
                trimmed.add(new Trimmed(now.getId(), Math.abs(now.getNumDeletions() - prior.getNumDeletions())));
            } else {
                afterOnly.add(now.getId());
            }
        }
        was.keySet().stream().filter(id -> !paired.contains(id)).forEach(beforeOnly::add);

        // Cheapest first, so a budget spent goes to the most fragments.
        trimmed.sort(Comparator.comparingLong(Trimmed::deletionsMoved));
        Picker old = new Picker(maxPickedRows);
        Picker now = new Picker(maxPickedRows);
        for (Trimmed t : trimmed) {
            boolean picked = false;
            if (t.deletionsMoved() <= Math.min(old.room(), now.room())) {
                long[] live = liveRowIds(before, t.id());
                long[] still = liveRowIds(after, t.id());
                long[] lost = minus(live, still);
                long[] regained = minus(still, live);
                if (lost.length <= old.room() && regained.length <= now.room()) {
                    old.add(t.id(), lost);
                    now.add(t.id(), regained);
                    picked = true;
                }
            }
            if (!picked) {
                beforeOnly.add(t.id());
                afterOnly.add(t.id());
            }
        }
        return new FragmentDiff(beforeOnly, afterOnly, old.picks(), now.picks());
    }

    private static boolean sameDataFiles(FragmentMetadata a, FragmentMetadata b) {
        return a.getFiles().equals(b.getFiles()) && a.getPhysicalRows() == b.getPhysicalRows()
                && Objects.equals(a.getRowIdMeta(), b.getRowIdMeta());
    }

    /** The row ids of one fragment's live rows, sorted: a scan that projects no column reads only ids and deletions. */
    private static long[] liveRowIds(Dataset dataset, int fragmentId) {
        long[] ids = new long[64];
        int count = 0;
        ScanOptions options = new ScanOptions.Builder().columns(List.of()).withRowId(true)
                .fragmentIds(List.of(fragmentId)).batchSize(8192).build();
        try (LanceScanner scanner = dataset.newScan(options); ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                UInt8Vector column = (UInt8Vector) reader.getVectorSchemaRoot().getVector(ROW_ID);
                int rows = reader.getVectorSchemaRoot().getRowCount();
                if (count + rows > ids.length) ids = Arrays.copyOf(ids, Math.max(ids.length * 2, count + rows));
                for (int i = 0; i < rows; i++) ids[count++] = column.get(i);
            }
        } catch (Exception e) {
            throw LanceFailures.translate("fragmentDiff", TableRef.main(dataset.uri()), e);
        }
        long[] sorted = Arrays.copyOf(ids, count);
        Arrays.sort(sorted);
        return sorted;
    }

    /** The ids of {@code a} not in {@code b}, both sorted. */
    private static long[] minus(long[] a, long[] b) {
        long[] out = new long[Math.min(a.length, 64)];
        int n = 0;
        int j = 0;
        for (long id : a) {
            while (j < b.length && b[j] < id) j++;
            if (j < b.length && b[j] == id) continue;
            if (n == out.length) out = Arrays.copyOf(out, Math.max(8, out.length * 2));
            out[n++] = id;
        }
        return Arrays.copyOf(out, n);
    }

    /** Collects one side's picks within its budget. */
    private static final class Picker {
        private final List<Integer> fragments = new ArrayList<>();
        private final List<Long> rowIds = new ArrayList<>();
        private final int max;

        Picker(int max) {
            this.max = max;
        }

        long room() {
            return max - rowIds.size();
        }

        void add(int fragment, long[] ids) {
            if (ids.length == 0) return;
            fragments.add(fragment);
            for (long id : ids) rowIds.add(id);
        }

        RowPicks picks() {
            return rowIds.isEmpty() ? RowPicks.NONE : new RowPicks(fragments, rowIds);
        }
    }
}

package dev.omnigraph.storage;

import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;

/**
 * Collects row addresses matching predicates and stages them as deletion vectors. Offsets come from
 * {@code _rowaddr} (fragment id in the high 32 bits), never from {@code _rowid}: with stable row ids the two differ.
 */
final class RowDeletions {
    private final TreeMap<Integer, TreeSet<Integer>> offsetsByFragment = new TreeMap<>();

    /** Adds every row of {@code dataset} that matches {@code predicate}. */
    void collect(Dataset dataset, String predicate, boolean useIndexes) {
        String firstColumn = dataset.getSchema().getFields().get(0).getName();
        ScanOptions options = new ScanOptions.Builder().filter(predicate).columns(List.of(firstColumn))
                .useScalarIndex(useIndexes)
                .withRowAddress(true).build();
        try (LanceScanner scanner = dataset.newScan(options); ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                VectorSchemaRoot batch = reader.getVectorSchemaRoot();
                UInt8Vector addresses = (UInt8Vector) batch.getVector("_rowaddr");
                for (int i = 0; i < batch.getRowCount(); i++) {
                    long address = addresses.get(i);
                    offsetsByFragment.computeIfAbsent((int) (address >>> 32), id -> new TreeSet<>())
                            .add((int) (address & 0xFFFF_FFFFL));
                }
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("scan for deletion failed: " + e.getMessage(), e);
        }
    }

    /**
     * The rows at {@code addresses}, trusted only when {@code dataset} is exactly {@code snapshot} (version,
     * recorded time, fragment count) and every address lies inside one of its fragments: Lance accepts
     * out-of-range offsets silently, so a wrong address must never reach {@code deleteRows}. Null otherwise.
     */
    static RowDeletions at(Dataset dataset, TableSnapshot snapshot, List<Long> addresses) {
        if (snapshot.versionTime().equals(java.time.Instant.EPOCH) || dataset.version() != snapshot.version()
                || !dataset.getVersion().getDataTime().toInstant().equals(snapshot.versionTime())) {
            return null;
        }
        java.util.Map<Integer, Long> physicalRows = new java.util.HashMap<>();
        dataset.getFragments().forEach(fragment -> physicalRows.put(fragment.getId(), fragment.metadata().getPhysicalRows()));
        if (physicalRows.size() != snapshot.fragmentCount()) {
            return null;
        }
        RowDeletions deletions = new RowDeletions();
        for (long address : addresses) {
            int fragmentId = (int) (address >>> 32);
            long offset = address & 0xFFFF_FFFFL;
            Long rows = physicalRows.get(fragmentId);
            if (rows == null || offset >= rows) {
                return null;
            }
            deletions.offsetsByFragment.computeIfAbsent(fragmentId, id -> new TreeSet<>()).add((int) offset);
        }
        return deletions;
    }

    boolean isEmpty() {
        return offsetsByFragment.isEmpty();
    }

    /** How many rows are marked (each address once). */
    long size() {
        return offsetsByFragment.values().stream().mapToLong(TreeSet::size).sum();
    }

    /** Writes the deletion files (no commit). A fragment losing every row is listed as removed instead. */
    Staged stage(Dataset dataset) {
        List<FragmentMetadata> updated = new ArrayList<>();
        List<Long> removed = new ArrayList<>();
        offsetsByFragment.forEach((fragmentId, offsets) -> {
            FragmentMetadata after = dataset.getFragment(fragmentId).deleteRows(new ArrayList<>(offsets));
            if (after == null) {
                removed.add((long) fragmentId);
            } else {
                updated.add(after);
            }
        });
        return new Staged(List.copyOf(updated), List.copyOf(removed), size());
    }

    /** The deletion files written, the fragments removed whole, and how many rows they delete in all. */
    record Staged(List<FragmentMetadata> updatedFragments, List<Long> removedFragmentIds, long rows) {
    }
}

package dev.omnigraph.storage;

import java.util.List;

/**
 * How two snapshots of one dataset differ, fragment by fragment, so a row diff reads only what differs:
 * <ul>
 *   <li>{@code beforeOnly} / {@code afterOnly}: fragments (by id) that the other side does not hold with the same data
 *       files, read whole;</li>
 *   <li>{@code beforeRows} / {@code afterRows}: single rows of fragments both sides hold with the same data files but
 *       different deletion vectors (a delete or an update marked rows of a fragment deleted): the rows live on that
 *       side only, read by row id with {@link TableStorage#rowsAt}.</li>
 * </ul>
 * Fragments both sides hold identically (same id, data files, deletion file and row-id metadata) hold the same rows
 * and appear nowhere.
 */
public record FragmentDiff(List<Integer> beforeOnly, List<Integer> afterOnly, RowPicks beforeRows, RowPicks afterRows) {
    public FragmentDiff {
        beforeOnly = List.copyOf(beforeOnly);
        afterOnly = List.copyOf(afterOnly);
    }

    /** True when the two snapshots hold the same rows. */
    public boolean isEmpty() {
        return beforeOnly.isEmpty() && afterOnly.isEmpty() && beforeRows.isEmpty() && afterRows.isEmpty();
    }

    /**
     * Rows of one snapshot named by their Lance row ids (stable row ids, or row addresses on a table made without
     * them), with the fragments that hold them. Opaque to the engine: it counts them and hands them back.
     */
    public record RowPicks(List<Integer> fragments, List<Long> rowIds) {
        public static final RowPicks NONE = new RowPicks(List.of(), List.of());

        public RowPicks {
            fragments = List.copyOf(fragments);
            rowIds = List.copyOf(rowIds);
        }

        public boolean isEmpty() {
            return rowIds.isEmpty();
        }

        public int size() {
            return rowIds.size();
        }
    }
}

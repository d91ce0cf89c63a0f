package dev.omnigraph.storage;

import java.util.List;

/**
 * The fragments of two snapshots of one dataset that are not identical in the other (same id, data files, deletion
 * file and row-id metadata): {@code beforeOnly} of the first, {@code afterOnly} of the second, by id. Rows of the
 * fragments both share are the same rows on both sides, so a row diff reads only these.
 */
public record FragmentDiff(List<Integer> beforeOnly, List<Integer> afterOnly) {
    public FragmentDiff {
        beforeOnly = List.copyOf(beforeOnly);
        afterOnly = List.copyOf(afterOnly);
    }
}

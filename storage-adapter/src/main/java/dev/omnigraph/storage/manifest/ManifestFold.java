package dev.omnigraph.storage.manifest;

import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.TableStorage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Folds the small fragments of {@code __manifest} (one per publish) into one fragment of at most a target number
 * of live rows, by writing their rows again: one Lance {@code Update} that removes those fragments whole and adds
 * the new one. The rows are the same; what differs from Lance's compaction (a {@code Rewrite}) is that it keeps each
 * row's stable row id and creation version, one run per original publish, and every later manifest file of the
 * dataset repeats those runs (about 18 bytes per commit row in each kept version). Rows written again get fresh,
 * contiguous ids and one version, so a folded fragment costs every later manifest file a constant few bytes.
 *
 * <p>A fold is one commit at the version it read, and it writes the stamp row again as every publish does (the
 * stamp is added to the folded rows when its fragment is not in the group), so a publish landing in between
 * touches a fragment the fold touches: one of the two loses to the other as two publishes do, and the loser
 * retries (the publisher) or waits for the next fold (the fold is best effort). Without the stamp a fold of older
 * fragments and a publish would be disjoint, and Lance would rebase the later one past the version it read. Its
 * files, when its commit loses, are unreferenced garbage that cleanup reclaims.
 */
final class ManifestFold {
    private static final String ROW_ADDRESS = "_rowaddr";
    /** The fold's transaction property, as other writers name theirs: its version is told apart from a publish's. */
    static final Map<String, String> PROPERTIES = Map.of("omnigraph.writer", "manifest-fold");

    /**
     * An older fragment joins a fold once the newer fragments taken so far hold at least 1 / {@value #CATCH_UP} of
     * its live rows. Not "as many as it": every fold carries the current-state rows (stamp, table, head), which the
     * next publish deletes, and the publishes per fold fall as tiers add to the fragment count the trigger reads, so a
     * new tier always ends a few rows short of the one before it and an exact comparison never merged them (session 9:
     * thirty-odd tiers of ~100 rows at ~120 bytes a row instead of a few large ones, and a fold every few publishes).
     */
    static final long CATCH_UP = 2;

    private ManifestFold() {
    }

    /** Folds {@link #group} of {@code ref}'s fragments when it has two or more; the version it landed, if it folded. */
    static Mono<Optional<Long>> fold(TableStorage tables, TableRef ref, long targetRows) {
        return tables.open(ref, OptionalLong.empty()).flatMap(snapshot -> tables.liveRowsByFragment(snapshot)
                .flatMap(rows -> {
                    List<Integer> group = group(rows, targetRows);
                    return group.isEmpty() ? Mono.just(Optional.<Long>empty()) : rewrite(tables, snapshot, group);
                }));
    }

    /**
     * Size-tiered: the newest fragments, taken from the end while each older one holds no more than
     * {@link #CATCH_UP} times the live rows taken so far and the total stays within {@code targetRows}; empty unless
     * that is two or more. So a fold merges the publishes since the last one, and an older folded fragment once the
     * rows after it have caught up with half of it: tiers grow geometrically (a few at a time, each at least half
     * again its successor), a row is written again about log1.5(target / publishes per fold) times, not at every
     * fold, and a fold between two versions kept for time travel leaves a second copy of what it merged, not of the
     * whole partial tail of the lineage. Full fragments are never rewritten.
     */
    static List<Integer> group(Map<Integer, Long> liveRows, long targetRows) {
        List<Map.Entry<Integer, Long>> fragments = new ArrayList<>(liveRows.entrySet());
        List<Integer> group = new ArrayList<>();
        long total = 0;
        for (int i = fragments.size() - 1; i >= 0; i--) {
            long rows = fragments.get(i).getValue();
            if (rows >= targetRows || total + rows > targetRows || (!group.isEmpty() && rows > CATCH_UP * total)) {
                break;
            }
            group.add(0, fragments.get(i).getKey());
            total += rows;
        }
        return group.size() >= 2 ? List.copyOf(group) : List.of();
    }

    /**
     * Writes {@code fragments} of {@code snapshot} (and the stamp row) again, in one commit: the commit rows as one
     * fragment and the current-state rows among them (stamp, table and head rows) as a second, small one. Together,
     * the state rows' columns that commit rows leave null (table key, location, ids, counts) would have to be stored
     * for every row of the fragment: a folded commit row took ~95 bytes instead of ~69 (session 9). The next publish
     * deletes most of the state fragment and the next fold takes what is left.
     */
    static Mono<Optional<Long>> rewrite(TableStorage tables, TableSnapshot snapshot, List<Integer> fragments) {
        Flux<Map<String, Object>> group = tables.scan(snapshot, ScanRequest.all().includingRowAddress()
                .onFragments(fragments)).flatMapIterable(RowBatch::rows);
        Flux<Map<String, Object>> stamp = tables.scan(snapshot, ScanRequest.all().includingRowAddress()
                .withFilter(ManifestSchema.OBJECT_ID + " = '" + ManifestSchema.STAMP_ID + "'")).flatMapIterable(RowBatch::rows);
        return Flux.concat(group, stamp).collectList()
                .map(ManifestFold::distinctByObjectId)
                .flatMap(scanned -> {
                    Map<String, Long> addresses = new HashMap<>();
                    List<Map<String, Object>> lineage = new ArrayList<>(scanned.size());
                    List<Map<String, Object>> state = new ArrayList<>();
                    for (Map<String, Object> row : scanned) {
                        Map<String, Object> copy = new HashMap<>(row);
                        addresses.put((String) copy.get(ManifestSchema.OBJECT_ID), (Long) copy.remove(ROW_ADDRESS));
                        (ManifestSchema.TYPE_COMMIT.equals(copy.get(ManifestSchema.OBJECT_TYPE)) ? lineage : state)
                                .add(copy);
                    }
                    return tables.stageUpsertInPartsAt(snapshot, addresses, List.of(lineage, state),
                                    ManifestSchema.OBJECT_ID, PROPERTIES)
                            .flatMap(tables::commitStaged)
                            .map(committed -> Optional.of(committed.version()));
                });
    }

    /** The stamp row, when its fragment is in the group, is scanned twice: once is enough. */
    private static List<Map<String, Object>> distinctByObjectId(List<Map<String, Object>> rows) {
        Map<Object, Map<String, Object>> byId = new java.util.LinkedHashMap<>();
        rows.forEach(row -> byId.putIfAbsent(row.get(ManifestSchema.OBJECT_ID), row));
        return List.copyOf(byId.values());
    }
}

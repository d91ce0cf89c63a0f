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

    private ManifestFold() {
    }

    /** Folds the first run of at least two small fragments of {@code ref}; the version it landed, if it folded. */
    static Mono<Optional<Long>> fold(TableStorage tables, TableRef ref, long targetRows) {
        return tables.open(ref, OptionalLong.empty()).flatMap(snapshot -> tables.liveRowsByFragment(snapshot)
                .flatMap(rows -> {
                    List<Integer> group = firstGroup(rows, targetRows);
                    return group.isEmpty() ? Mono.just(Optional.<Long>empty()) : rewrite(tables, snapshot, group);
                }));
    }

    /**
     * The first run of consecutive fragments under {@code targetRows} live rows each whose total stays within it,
     * when it has two or more; a small fragment that cannot join its successor is passed over (left as it is).
     */
    static List<Integer> firstGroup(Map<Integer, Long> liveRows, long targetRows) {
        List<Integer> group = new ArrayList<>();
        long total = 0;
        for (Map.Entry<Integer, Long> fragment : liveRows.entrySet()) {
            long rows = fragment.getValue();
            boolean fits = rows < targetRows && total + rows <= targetRows;
            if (!fits && group.size() >= 2) {
                return group;
            }
            if (!fits) {
                group.clear();
                total = 0;
                if (rows >= targetRows) continue;
            }
            group.add(fragment.getKey());
            total += rows;
        }
        return group.size() >= 2 ? List.copyOf(group) : List.of();
    }

    private static Mono<Optional<Long>> rewrite(TableStorage tables, TableSnapshot snapshot, List<Integer> fragments) {
        Flux<Map<String, Object>> group = tables.scan(snapshot, ScanRequest.all().includingRowAddress()
                .onFragments(fragments)).flatMapIterable(RowBatch::rows);
        Flux<Map<String, Object>> stamp = tables.scan(snapshot, ScanRequest.all().includingRowAddress()
                .withFilter(ManifestSchema.OBJECT_ID + " = '" + ManifestSchema.STAMP_ID + "'")).flatMapIterable(RowBatch::rows);
        return Flux.concat(group, stamp).collectList()
                .map(ManifestFold::distinctByObjectId)
                .flatMap(scanned -> {
                    Map<String, Long> addresses = new HashMap<>();
                    List<Map<String, Object>> rows = new ArrayList<>(scanned.size());
                    for (Map<String, Object> row : scanned) {
                        Map<String, Object> copy = new HashMap<>(row);
                        addresses.put((String) copy.get(ManifestSchema.OBJECT_ID), (Long) copy.remove(ROW_ADDRESS));
                        rows.add(copy);
                    }
                    return tables.stageUpsertAt(snapshot, addresses, rows, ManifestSchema.OBJECT_ID, PROPERTIES)
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

package dev.omnigraph.engine.diff;

import dev.omnigraph.engine.index.IndexEnsurer;
import dev.omnigraph.engine.maintain.Optimizer;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.error.ChangeDiffRefused;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.ManifestStore;
import dev.omnigraph.storage.manifest.TableDelta;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The entity changes of one commit against its first parent. The commit's own table deltas name the tables it
 * moved; each is pinned on both sides from the manifest states the two commits produced (so a first-touch fork
 * is compared with the parent version it forked from), and {@link RowDeltas} streams the rows that differ.
 * Output is ordered by table key, then id; a {@link Position} (table key, last id) resumes it exactly.
 */
final class CommitStream {
    private static final String SRC = "src";
    private static final String DST = "dst";

    private final ManifestStore manifest;
    private final RowDeltas deltas;

    CommitStream(ManifestStore manifest, RowDeltas deltas) {
        this.manifest = manifest;
        this.deltas = deltas;
    }

    /** Where a consumer stopped: the table key and the last id it took there. */
    record Position(String tableKey, String lastId) {
    }

    /** One change and the position just after it. */
    record Positioned(EntityChange change, Position position) {
    }

    /** One touched table of a commit, pinned on both sides (absent where the table did not exist). */
    record TablePair(String tableKey, String kind, String typeName, String typeId, Optional<TableSnapshot> before,
                     Optional<TableSnapshot> after) {
    }

    record Planned(GraphCommit commit, List<TablePair> tables) {
    }

    /**
     * Pins every table {@code commit} moved that {@code filter} admits, refusing a parentless commit and a table
     * whose columns differ across the commit (both before any change is produced, so no page fails half-way).
     */
    Mono<Planned> plan(GraphCommit commit, ChangeFilter filter) {
        return plan(commit, Optional.empty(), filter);
    }

    /** As {@link #plan(GraphCommit, ChangeFilter)}, with the first parent when the caller already read it. */
    Mono<Planned> plan(GraphCommit commit, Optional<GraphCommit> knownParent, ChangeFilter filter) {
        if (commit.parentIds().isEmpty()) {
            return Mono.error(new ChangeDiffRefused(ChangeDiffRefused.Reason.PARENTLESS_COMMIT, commit.id(),
                    Optional.empty(), "commit " + commit.id() + " has no parent (it created the graph); there is no"
                    + " diff to show"));
        }
        if (preservesRows(commit)) {
            return Mono.just(new Planned(commit, List.of())); // nothing to diff, so no manifest state is loaded
        }
        String parentId = commit.parentIds().get(0);
        Mono<GraphCommit> parent = knownParent.filter(p -> p.id().equals(parentId)).map(Mono::just)
                .orElseGet(() -> manifest.commitOn(commit.branchName(), parentId)
                        .flatMap(found -> found.map(Mono::just).orElseGet(() -> manifest.commit(parentId))));
        return parent.flatMap(p -> manifest.loadAt(p.branchName(), p.manifestVersion()))
                .zipWith(manifest.loadAt(commit.branchName(), commit.manifestVersion()))
                .flatMap(states -> Flux.fromIterable(touched(commit, filter))
                        .concatMap(key -> pair(commit, key, states.getT1(), states.getT2()))
                        .collectList())
                .map(pairs -> new Planned(commit, pairs));
    }

    /** The changes of a planned commit after {@code from} (from the start when empty) that the filter admits. */
    Flux<Positioned> stream(Planned planned, Optional<Position> from, ChangeFilter filter) {
        return Flux.fromIterable(planned.tables())
                .filter(t -> from.isEmpty() || t.tableKey().compareTo(from.get().tableKey()) >= 0)
                .concatMap(t -> {
                    Optional<String> afterId = from.filter(p -> p.tableKey().equals(t.tableKey())).map(Position::lastId);
                    return deltas.between(t.before(), t.after(), afterId)
                            .filter(change -> filter.admits(change.op()))
                            .map(change -> new Positioned(entity(t, change), new Position(t.tableKey(), change.id())));
                });
    }

    /** Optimize and ensure-indices commits move pins but change no entity, so they are not diffed at all. */
    private static boolean preservesRows(GraphCommit commit) {
        return Optimizer.preservesRows(commit.operation()) || IndexEnsurer.OPERATION.equals(commit.operation());
    }

    private static List<String> touched(GraphCommit commit, ChangeFilter filter) {
        return commit.deltas().stream().map(TableDelta::tableKey).distinct().sorted()
                .filter(key -> filter.admitsTable(kindOf(key), typeOf(key))).toList();
    }

    private Mono<TablePair> pair(GraphCommit commit, String key, ManifestState before, ManifestState after) {
        Optional<TableEntry> old = before.table(key);
        Optional<TableEntry> now = after.table(key);
        String typeId = now.or(() -> old).map(TableEntry::objectId).orElse(key);
        String root = manifest.root();
        Mono<Optional<TableSnapshot>> oldPin = old.map(e -> deltas.pin(root, e).map(Optional::of)).orElse(Mono.just(Optional.empty()));
        Mono<Optional<TableSnapshot>> nowPin = now.map(e -> deltas.pin(root, e).map(Optional::of)).orElse(Mono.just(Optional.empty()));
        return oldPin.zipWith(nowPin).map(pins -> {
            Optional<TableSnapshot> b = pins.getT1();
            Optional<TableSnapshot> a = pins.getT2();
            boolean replaced = old.isPresent() && now.isPresent() && !old.get().objectId().equals(now.get().objectId());
            if (replaced || (b.isPresent() && a.isPresent() && !RowDeltas.sameColumns(b.get(), a.get()))) {
                throw new ChangeDiffRefused(ChangeDiffRefused.Reason.SCHEMA_BOUNDARY, commit.id(),
                        Optional.of(typeOf(key)), "commit " + commit.id() + " changed the columns of " + key
                        + "; a row diff cannot cross that schema boundary");
            }
            return new TablePair(key, kindOf(key), typeOf(key), typeId, b, a);
        });
    }

    static String kindOf(String tableKey) {
        return tableKey.substring(0, Math.max(tableKey.indexOf(':'), 0));
    }

    static String typeOf(String tableKey) {
        return tableKey.substring(tableKey.indexOf(':') + 1);
    }

    private static EntityChange entity(TablePair table, RowChange change) {
        boolean edge = "edge".equals(table.kind());
        return new EntityChange(table.kind(), table.typeId(), table.typeName(), change.id(), change.op(),
                change.before().map(row -> image(row, edge)), change.after().map(row -> image(row, edge)));
    }

    private static EntityChange.Image image(Map<String, Object> row, boolean edge) {
        Map<String, Object> properties = new LinkedHashMap<>();
        row.forEach((column, value) -> {
            if (column.equals(RowValues.ID) || (edge && (column.equals(SRC) || column.equals(DST)))) return;
            properties.put(column, value);
        });
        Optional<EntityChange.Endpoints> endpoints = edge
                ? Optional.of(new EntityChange.Endpoints((String) row.get(SRC), (String) row.get(DST)))
                : Optional.empty();
        return new EntityChange.Image(java.util.Collections.unmodifiableMap(properties), endpoints);
    }
}

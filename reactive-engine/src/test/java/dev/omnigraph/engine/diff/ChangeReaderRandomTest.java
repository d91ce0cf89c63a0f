package dev.omnigraph.engine.diff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.LanceTableStorage;
import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.SqlLiterals;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The change reader against a brute-force comparison (both versions scanned whole, rows matched by id) on randomised
 * histories of one real Lance table: appends, upserts of new and existing keys, deletes, overwrites and compactions,
 * then a branch forked from a random version and written on its own. Every pair of versions on one lineage (and the
 * fork's parent pin against each branch version) must give identical answers, from the start and resumed mid-way.
 * The picking budget is exercised both ways: most changes are a few rows, some delete more than a side may pick.
 */
class ChangeReaderRandomTest {
    static final Duration WAIT = Duration.ofSeconds(120);

    @TempDir
    Path dir;
    final LanceTableStorage tables = StorageFixture.newTableStorage();

    @AfterEach
    void tearDown() {
        tables.close();
    }

    @ParameterizedTest
    @ValueSource(longs = {1L, 2L, 3L})
    void answersEqualAFullComparisonOnRandomHistories(long seed) {
        Random random = new Random(seed);
        TableSnapshot start = tables.create(dir.resolve("t" + seed).toString(), RowDeltasTest.SCHEMA).block(WAIT);
        List<TableSnapshot> main = new ArrayList<>();
        main.add(start);
        int[] nextId = {0};
        TableSnapshot at = start;
        for (int step = 0; step < 9; step++) {
            at = write(at, random, nextId);
            main.add(at);
        }
        TableSnapshot fork = main.get(2 + random.nextInt(main.size() - 2));
        String branch = "b" + seed;
        tables.createBranch(fork.ref(), fork.version(), branch).block(WAIT);
        TableSnapshot onBranch = tables.open(TableRef.onBranch(fork.ref().path(), branch), OptionalLong.empty()).block(WAIT);
        List<TableSnapshot> branchVersions = new ArrayList<>();
        for (int step = 0; step < 4; step++) {
            onBranch = write(onBranch, random, nextId);
            branchVersions.add(onBranch);
        }

        RowDeltas reader = new RowDeltas(tables);
        int compared = 0;
        for (int i = 0; i < main.size(); i++) {
            for (int j = i + 1; j < main.size(); j++) {
                assertSame(reader, main.get(i), main.get(j));
                compared++;
            }
        }
        for (TableSnapshot version : branchVersions) {
            assertSame(reader, fork, version);
            compared++;
        }
        assertThat(compared).isEqualTo(main.size() * (main.size() - 1) / 2 + branchVersions.size());
    }

    /** One random write, committed; compactions and overwrites are rarer than row writes. */
    private TableSnapshot write(TableSnapshot at, Random random, int[] nextId) {
        List<String> live = ids(at);
        int kind = random.nextInt(10);
        if (live.isEmpty() || kind < 3) {
            List<Map<String, Object>> rows = new ArrayList<>();
            int count = 1 + random.nextInt(random.nextBoolean() ? 5 : 3_000);
            for (int i = 0; i < count; i++) rows.add(RowDeltasTest.row(String.format("k%06d", nextId[0]++), (long) random.nextInt(100)));
            return commit(at, tables.stageAppend(at, rows, Map.of()));
        }
        if (kind < 6) { // upsert: some existing keys (changed or rewritten equal), some new
            List<Map<String, Object>> rows = new ArrayList<>();
            int count = 1 + random.nextInt(random.nextBoolean() ? 4 : 200);
            for (int i = 0; i < count; i++) {
                String id = live.get(random.nextInt(live.size()));
                rows.add(RowDeltasTest.row(id, random.nextInt(3) == 0 ? null : (long) random.nextInt(100)));
            }
            rows.add(RowDeltasTest.row(String.format("k%06d", nextId[0]++), 7L));
            Map<String, Map<String, Object>> unique = new LinkedHashMap<>();
            rows.forEach(row -> unique.put((String) row.get("id"), row));
            return commit(at, tables.stageUpsert(at, new ArrayList<>(unique.values()), "id", Map.of()));
        }
        if (kind < 8) { // delete: a few rows, or more than a side may pick one by one
            List<String> doomed = new ArrayList<>();
            int count = random.nextBoolean() ? 1 + random.nextInt(3) : Math.min(live.size(), 9_000);
            for (int i = 0; i < count; i++) doomed.add(live.get(random.nextInt(live.size())));
            return tables.stageDelete(at, SqlLiterals.inList("id", doomed), Map.of())
                    .flatMap(h -> h.map(tables::commitStaged).orElseThrow())
                    .flatMap(c -> tables.open(at.ref(), OptionalLong.of(c.version()))).block(WAIT);
        }
        if (kind == 8) {
            Optional<Long> compacted = tables.compactFragments(at.ref()).block(WAIT);
            return compacted.isPresent() ? tables.open(at.ref(), OptionalLong.of(compacted.get())).block(WAIT)
                    : write(at, random, nextId);
        }
        List<Map<String, Object>> image = new ArrayList<>(); // overwrite: half the rows kept, some changed
        scanAll(at).values().stream().filter(row -> random.nextBoolean()).forEach(row -> {
            Map<String, Object> copy = new LinkedHashMap<>(row);
            if (random.nextInt(4) == 0) copy.put("v", 1_000L + random.nextInt(100));
            image.add(copy);
        });
        return commit(at, tables.stageOverwrite(at, image, Map.of()));
    }

    private TableSnapshot commit(TableSnapshot at, reactor.core.publisher.Mono<dev.omnigraph.storage.StagedHandle> staged) {
        return staged.flatMap(tables::commitStaged).flatMap(c -> tables.open(at.ref(), OptionalLong.of(c.version()))).block(WAIT);
    }

    private void assertSame(RowDeltas reader, TableSnapshot before, TableSnapshot after) {
        TreeMap<String, String> expected = bruteForce(before, after);
        List<RowChange> got = reader.between(Optional.of(before), Optional.of(after), Optional.empty()).collectList().block(WAIT);
        Map<String, String> answered = new LinkedHashMap<>();
        got.forEach(change -> answered.put(change.id(), describe(change)));
        String what = before.ref() + "@" + before.version() + " -> " + after.ref() + "@" + after.version();
        assertThat(new ArrayList<>(answered.keySet())).as(what + ": ids in order, each once")
                .isEqualTo(new ArrayList<>(expected.keySet()));
        assertThat(answered).as(what).isEqualTo(expected);
        if (got.size() > 2) { // resumed after a middle id: exactly the rest
            String middle = got.get(got.size() / 2).id();
            assertThat(reader.between(Optional.of(before), Optional.of(after), Optional.of(middle)).map(RowChange::id)
                    .collectList().block(WAIT)).as(what + " resumed")
                    .isEqualTo(got.subList(got.size() / 2 + 1, got.size()).stream().map(RowChange::id).toList());
        }
    }

    private TreeMap<String, String> bruteForce(TableSnapshot before, TableSnapshot after) {
        Map<String, Map<String, Object>> old = scanAll(before);
        Map<String, Map<String, Object>> now = scanAll(after);
        TreeMap<String, String> expected = new TreeMap<>(RowValues.ID_ORDER);
        old.forEach((id, row) -> {
            Map<String, Object> current = now.get(id);
            if (current == null) {
                expected.put(id, "delete " + row.get("v"));
            } else if (!RowValues.rowsEqual(row, current)) {
                expected.put(id, "update " + row.get("v") + " -> " + current.get("v"));
            }
        });
        now.forEach((id, row) -> {
            if (!old.containsKey(id)) expected.put(id, "insert " + row.get("v"));
        });
        return expected;
    }

    private static String describe(RowChange change) {
        return switch (change.op()) {
            case INSERT -> "insert " + change.after().orElseThrow().get("v");
            case DELETE -> "delete " + change.before().orElseThrow().get("v");
            case UPDATE -> "update " + change.before().orElseThrow().get("v") + " -> " + change.after().orElseThrow().get("v");
        };
    }

    private Map<String, Map<String, Object>> scanAll(TableSnapshot snapshot) {
        Map<String, Map<String, Object>> rows = new LinkedHashMap<>();
        for (RowBatch batch : tables.scan(snapshot, ScanRequest.all()).collectList().block(WAIT)) {
            batch.rows().forEach(row -> rows.put((String) row.get("id"), row));
        }
        return rows;
    }

    private List<String> ids(TableSnapshot snapshot) {
        return new ArrayList<>(scanAll(snapshot).keySet());
    }
}

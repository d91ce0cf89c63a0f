package dev.omnigraph.storage;

import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The set-up storage tests share: a temp directory for real Lance datasets and a fresh {@link LanceTableStorage}
 * per test, whose close fails the test when any Arrow buffer leaked. A subclass's own {@code @BeforeEach} runs
 * after this one, so it may use {@link #storage} already.
 */
abstract class LanceStorageTestBase {
    @TempDir
    Path dir;
    LanceTableStorage storage;

    @BeforeEach
    final void openStorage() {
        storage = StorageFixture.newTableStorage();
    }

    @AfterEach
    final void closeStorageCheckingLeaks() {
        storage.close(); // throws IllegalStateException when any Arrow buffer leaked
    }

    /** Every row of the latest version of a people table (see {@link LanceTableStorageTest#PEOPLE}) as "id=age", sorted. */
    List<String> ages(TableRef ref) {
        TableSnapshot latest = storage.open(ref, OptionalLong.empty()).block();
        return storage.scan(latest, ScanRequest.all().withColumns(List.of("id", "age"))).flatMapIterable(RowBatch::rows)
                .collectList().block().stream()
                .map(row -> row.get("id") + "=" + row.get("age")).sorted().toList();
    }
}

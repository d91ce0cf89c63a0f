package dev.omnigraph.storage.manifest;

import dev.omnigraph.storage.LanceTableStorage;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The set-up manifest tests share: a graph root in a temp directory, a fresh {@link LanceTableStorage} (closed with
 * its leak check) and a {@link ManifestStore} over it, not yet initialised. A subclass's own {@code @BeforeEach}
 * runs after this one.
 */
abstract class ManifestStoreTestBase {
    @TempDir
    Path root;
    LanceTableStorage tables;
    ManifestStore store;

    @BeforeEach
    final void openStore() {
        tables = StorageFixture.newTableStorage();
        store = ManifestFixture.store(root.toString(), tables);
    }

    @AfterEach
    final void closeTablesCheckingLeaks() {
        tables.close();
    }
}

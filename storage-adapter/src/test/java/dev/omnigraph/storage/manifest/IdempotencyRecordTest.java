package dev.omnigraph.storage.manifest;

import static dev.omnigraph.storage.manifest.ManifestFixture.PERSON;
import static dev.omnigraph.storage.manifest.ManifestFixture.move;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.LanceTableStorage;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An idempotency record is written on the commit row by the publish itself, and read back only from keyed rows. */
class IdempotencyRecordTest {
    @TempDir
    Path root;
    final LanceTableStorage tables = StorageFixture.newTableStorage();

    @AfterEach
    void tearDown() {
        tables.close();
    }

    @Test
    void keyedCommitsAreReadBackWithTheirRecordAndOthersAreSkipped() {
        ManifestStore store = ManifestFixture.store(root.toString(), tables);
        ManifestBatchPublisher publisher = new ManifestBatchPublisher(store);
        ManifestFixture.init(store);
        GraphCommit plain = publisher.publish(move("main", ExpectedHead.any(), PERSON, 2, 3)).block();
        PublishRequest base = move("main", ExpectedHead.any(), PERSON, 3, 4);
        IdempotencyRecord record = new IdempotencyRecord("key \"quoted\" %_", "abc123", 2, 1,
                new java.util.TreeMap<>(java.util.Map.of("node:Person", 2L, "edge:Knows", 1L)));
        GraphCommit keyed = publisher.publish(new PublishRequest(base.branch(), base.expectedHead(), base.expectedBranch(),
                base.expectedPins(), base.tableUpdates(), base.commitId(), base.mergedParentId(), base.actorId(),
                base.createdAtMicros(), base.operation(), Optional.of(record))).block();

        var latest = store.latest("main").block();
        List<RecordedCommit> all = store.recordedCommits(latest, 0).collectList().block();
        assertThat(all).singleElement().satisfies(found -> {
            assertThat(found.record()).isEqualTo(record);
            assertThat(found.commit()).isEqualTo(keyed);
        });
        assertThat(store.recordedCommits(latest, keyed.manifestVersion()).collectList().block())
                .as("only commits past the version seen").isEmpty();
        assertThat(store.recordedCommits(latest, plain.manifestVersion()).collectList().block()).hasSize(1);
        assertThat(store.commits("main").collectList().block()).contains(plain, keyed);
    }
}

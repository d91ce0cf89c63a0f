package dev.omnigraph.storage.manifest;

import static dev.omnigraph.storage.manifest.ManifestFixture.KNOWS;
import static dev.omnigraph.storage.manifest.ManifestFixture.PERSON;
import static dev.omnigraph.storage.manifest.ManifestFixture.move;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.CountingTableStorage;
import dev.omnigraph.storage.LanceTableStorage;
import dev.omnigraph.storage.StorageCallCounter;
import dev.omnigraph.storage.StorageCallCounter.Call;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.ManifestConflict;
import dev.omnigraph.storage.error.ReadSetChanged;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store keeps the last manifest state it loaded or published and reuses it only for the exact version it was
 * read from. A second store over the same root stands for another process: whatever it publishes between this
 * store's version check and its CAS must make this store's publish lose, never land on a moved head.
 */
class ManifestCacheTest {
    @TempDir
    Path root;
    LanceTableStorage lance;
    StorageCallCounter counter;
    ManifestStore store;
    ManifestBatchPublisher publisher;
    ManifestStore other;
    ManifestBatchPublisher otherPublisher;
    GraphCommit genesis;

    @BeforeEach
    void setUp() {
        lance = StorageFixture.newTableStorage();
        counter = new StorageCallCounter();
        store = new ManifestStore(root.toString(), new CountingTableStorage(lance, counter));
        publisher = new ManifestBatchPublisher(store);
        other = new ManifestStore(root.toString(), lance);
        otherPublisher = new ManifestBatchPublisher(other);
        genesis = ManifestFixture.init(other);
    }

    @AfterEach
    void tearDown() {
        lance.close();
    }

    private Map<Call, Long> callsOf(Runnable work) {
        Map<Call, Long> before = counter.snapshot();
        work.run();
        Map<Call, Long> after = counter.snapshot();
        return Map.of(Call.OPEN, after.get(Call.OPEN) - before.get(Call.OPEN),
                Call.SCAN, after.get(Call.SCAN) - before.get(Call.SCAN),
                Call.STAGE, after.get(Call.STAGE) - before.get(Call.STAGE),
                Call.COMMIT, after.get(Call.COMMIT) - before.get(Call.COMMIT));
    }

    private static void assertSameState(ManifestState actual, ManifestState expected) {
        assertThat(actual.manifestVersion()).isEqualTo(expected.manifestVersion());
        assertThat(actual.manifest().sameVersionAs(expected.manifest())).isTrue();
        assertThat(actual.tables()).isEqualTo(expected.tables());
        assertThat(actual.heads()).isEqualTo(expected.heads());
        // Where the next publish deletes the rows it rewrites: a kept state must know exactly what a load reads.
        assertThat(actual.rowAddresses()).isNotEmpty().isEqualTo(expected.rowAddresses());
    }

    @Test
    void aLoadOfAnUnmovedManifestIsOneOpenAndNoScan() {
        ManifestState first = store.load("main").block();
        assertThat(callsOf(() -> assertSameState(store.load("main").block(), first)))
                .containsEntry(Call.OPEN, 1L).containsEntry(Call.SCAN, 0L);
    }

    @Test
    void aPublishKeepsExactlyWhatAFreshLoadReadsAndPlansWithoutReading() {
        store.load("main").block();
        Map<Call, Long> publish = callsOf(() ->
                publisher.publish(move("main", ExpectedHead.exactly(genesis.id()), PERSON, 2, 3)).block());
        assertThat(publish).containsEntry(Call.OPEN, 0L).containsEntry(Call.SCAN, 0L)
                .containsEntry(Call.STAGE, 1L).containsEntry(Call.COMMIT, 1L);

        ManifestState fresh = new ManifestStore(root.toString(), lance).load("main").block();
        Map<Call, Long> reload = callsOf(() -> assertSameState(store.load("main").block(), fresh));
        assertThat(reload).containsEntry(Call.OPEN, 1L).containsEntry(Call.SCAN, 0L);
        assertThat(fresh.table("node:Person").orElseThrow().version()).isEqualTo(3);
    }

    @Test
    void anExactPublishOnAStaleCacheLosesTheCasAndLosesNothing() {
        ManifestState checked = store.load("main").block();
        assertThat(checked.head()).contains(genesis.id());
        // Between this store's version check and its CAS, the other "process" publishes.
        GraphCommit theirs = otherPublisher.publish(move("main", ExpectedHead.exactly(genesis.id()), KNOWS, 2, 7)).block();

        assertThatThrownBy(() -> publisher.publish(move("main", ExpectedHead.exactly(genesis.id()), PERSON, 2, 3)).block())
                .isInstanceOfSatisfying(ReadSetChanged.class, e -> {
                    assertThat(e.what()).isEqualTo("graph_head:main");
                    assertThat(e.actual()).isEqualTo(theirs.id());
                });
        ManifestState live = new ManifestStore(root.toString(), lance).load("main").block();
        assertThat(live.head()).contains(theirs.id());
        assertThat(live.table("edge:Knows").orElseThrow().version()).isEqualTo(7);
        assertThat(live.table("node:Person")).contains(PERSON);
        assertThat(other.commits("main").map(GraphCommit::id).collectList().block())
                .containsExactly(theirs.id(), genesis.id());
        assertSameState(store.load("main").block(), live);
    }

    @Test
    void aStalePinLosesTheCasAndTheOtherUpdateSurvives() {
        store.load("main").block();
        otherPublisher.publish(move("main", ExpectedHead.any(), PERSON, 2, 5)).block();

        assertThatThrownBy(() -> publisher.publish(move("main", ExpectedHead.any(), PERSON, 2, 3)).block())
                .isInstanceOfSatisfying(ManifestConflict.class, e -> {
                    assertThat(e.what()).isEqualTo("pin of node:Person");
                    assertThat(e.actual()).isEqualTo("5");
                });
        assertThat(other.load("main").block().table("node:Person").orElseThrow().version()).isEqualTo(5);
    }

    @Test
    void anAnyHeadPublishOnAStaleCacheParentsOnTheLiveHeadAndKeepsTheOtherWrite() {
        store.load("main").block();
        GraphCommit theirs = otherPublisher.publish(move("main", ExpectedHead.any(), KNOWS, 2, 9)).block();

        GraphCommit mine = publisher.publish(move("main", ExpectedHead.any(), PERSON, 2, 3)).block();
        assertThat(mine.parentIds()).containsExactly(theirs.id());
        ManifestState live = new ManifestStore(root.toString(), lance).load("main").block();
        assertThat(live.head()).contains(mine.id());
        assertThat(live.table("edge:Knows").orElseThrow().version()).isEqualTo(9);
        assertThat(live.table("node:Person").orElseThrow().version()).isEqualTo(3);
        // What the store kept after its retried publish is the live manifest, not its stale plan.
        assertSameState(store.load("main").block(), live);
    }

    @Test
    void aRequestRefusedByTheKeptStateIsCheckedAgainstTheLiveManifest() {
        store.load("main").block();
        GraphCommit theirs = otherPublisher.publish(move("main", ExpectedHead.any(), KNOWS, 2, 4)).block();
        // Planned by someone who saw the other publish: the kept state (head genesis) would refuse it wrongly.
        GraphCommit mine = publisher.publish(move("main", ExpectedHead.exactly(theirs.id()), PERSON, 2, 3)).block();
        assertThat(mine.parentIds()).containsExactly(theirs.id());
    }

    @Test
    void aBranchCreatedAgainIsReadAfreshEvenAtTheSameVersionNumber() {
        TableRef mainRef = other.ref("main");
        long fork = lance.head(mainRef).block();
        lance.createBranch(mainRef, fork, "feat").block();
        GraphCommit first = publisher.publish(onFeat(other.branchIdentity("feat").block())).block();
        ManifestState kept = store.load("feat").block();
        assertThat(kept.head()).contains(first.id());

        lance.deleteBranch(mainRef.path(), "feat").block();
        lance.createBranch(mainRef, fork, "feat").block();
        GraphCommit second = otherPublisher.publish(onFeat(other.branchIdentity("feat").block())).block();
        assertThat(second.manifestVersion()).isEqualTo(first.manifestVersion());

        assertThat(store.load("feat").block().head()).contains(second.id());
    }

    private static PublishRequest onFeat(BranchIdentity identity) {
        return new PublishRequest("feat", ExpectedHead.absent(), Optional.of(identity), Map.of("node:Person", 2L),
                List.of(PERSON.pinnedAt(3, Optional.of("feat"), 1)), Ulid.next(), Optional.empty(), Optional.empty(),
                ManifestFixture.micros(), "mutation");
    }

    @Test
    void aCompactionMovesTheVersionSoTheNextLoadReadsAfresh() {
        GraphCommit previous = genesis;
        for (int i = 0; i < ManifestBatchPublisher.COMPACT_AT_FRAGMENTS + 3; i++) {
            previous = publisher.publish(move("main", ExpectedHead.exactly(previous.id()), PERSON, 2 + i, 3 + i)).block();
            assertSameState(store.load("main").block(), new ManifestStore(root.toString(), lance).load("main").block());
        }
        assertThat(store.load("main").block().head()).contains(previous.id());
    }

    @Test
    void onlyTheSameRecordedVersionCountsAsTheSameVersion() {
        TableRef ref = TableRef.main(root.resolve("t").toString());
        Instant at = Instant.parse("2026-11-30T20:00:00Z");
        TableSnapshot snapshot = new TableSnapshot(ref, 4, null, 10, 2, at);
        assertThat(snapshot.sameVersionAs(new TableSnapshot(ref, 4, null, 10, 2, at))).isTrue();
        assertThat(snapshot.sameVersionAs(new TableSnapshot(ref, 4, null, 10, 2, at.plusNanos(1)))).isFalse();
        assertThat(snapshot.sameVersionAs(new TableSnapshot(ref, 5, null, 10, 2, at))).isFalse();
        assertThat(snapshot.sameVersionAs(new TableSnapshot(TableRef.onBranch(ref.path(), "b"), 4, null, 10, 2, at))).isFalse();
        TableSnapshot unknown = new TableSnapshot(ref, 4, null, 10, 2);
        assertThat(unknown.sameVersionAs(unknown)).isFalse();
    }
}

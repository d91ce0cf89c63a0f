package dev.omnigraph.storage.manifest;

import static dev.omnigraph.storage.manifest.ManifestFixture.KNOWS;
import static dev.omnigraph.storage.manifest.ManifestFixture.PERSON;
import static dev.omnigraph.storage.manifest.ManifestFixture.move;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Sinks;

/**
 * A compaction of {@code __manifest} (a Lance Rewrite; the publisher's own or another process's) landing between a
 * publish's staging and its commit: the publish must neither be lost nor land on top of rows the rewrite moved.
 * It loses its CAS, plans again on the compacted manifest and lands once.
 */
class ManifestCompactionRaceTest extends ManifestStoreTestBase {
    ManifestBatchPublisher publisher;
    GraphCommit head;

    @BeforeEach
    void setUp() {
        publisher = new ManifestBatchPublisher(store);
        head = ManifestFixture.init(store);
        // Enough single-commit fragments that a compaction has work, too few for the publisher to compact itself:
        // each published by a store of its own (as by another process), so none writes the previous tail again.
        for (int i = 0; i < 10; i++) {
            head = new ManifestBatchPublisher(ManifestFixture.store(root.toString(), tables))
                    .publish(move("main", ExpectedHead.exactly(head.id()), PERSON, 2 + i, 3 + i)).block();
        }
        store.load("main").block();
    }

    @Test
    void aPublishStagedBeforeACompactionLandsOnceWithEveryRowIntact() throws Exception {
        aPublishStagedBeforeLandsOnce(() -> tables.compactFragments(store.ref("main")).block());
    }

    @Test
    void aPublishStagedBeforeAFoldLandsOnceWithEveryRowIntact() throws Exception {
        aPublishStagedBeforeLandsOnce(() -> ManifestFold.fold(tables, store.ref("main"),
                ManifestBatchPublisher.MANIFEST_FRAGMENT_ROWS).block());
    }

    /** As above, with the racing publish planned on a state that carries its tail (the store's own publishes). */
    @Test
    void aPublishCarryingItsTailStagedBeforeAFoldLandsOnceWithEveryRowIntact() throws Exception {
        head = publisher.publish(move("main", ExpectedHead.exactly(head.id()), PERSON, 12, 13)).block();
        head = publisher.publish(move("main", ExpectedHead.exactly(head.id()), PERSON, 13, 14)).block();
        assertThat(store.kept("main").orElseThrow().tail().commits()).as("the store kept a tail").isEqualTo(2);
        aPublishStagedBeforeLandsOnce(() -> ManifestFold.fold(tables, store.ref("main"),
                ManifestBatchPublisher.MANIFEST_FRAGMENT_ROWS).block());
    }

    /**
     * A fold of old fragments only and a publish that rewrites rows of the newest fragment only: disjoint but for
     * the stamp the fold writes again. Without it Lance rebased the publish past the fold, and the publish failed as
     * landed at the wrong version. ({@link ManifestFold#group} now always ends at the newest fragment, which the
     * publish touches too; the stamp keeps any group safe, checked here with an old one.)
     */
    @Test
    void aPublishStagedBeforeAFoldOfOtherFragmentsStillLosesItsCasAndLandsOnce() throws Exception {
        Sinks.Empty<Void> release = Sinks.empty();
        CompletableFuture<GraphCommit> racing = publisher.publish(move("main", ExpectedHead.exactly(head.id()), PERSON,
                12, 13), release.asMono()).toFuture();
        ManifestState before = store.load("main").block();
        List<Integer> ids = new java.util.ArrayList<>(tables.liveRowsByFragment(before.manifest()).block().keySet());
        List<Integer> group = ids.subList(1, 3); // old fragments, not the newest (which holds the stamp)
        Optional<Long> folded = ManifestFold.rewrite(tables, before.manifest(), group).block();
        assertThat(folded).isPresent();
        release.tryEmitEmpty();
        GraphCommit landed = racing.get(60, TimeUnit.SECONDS);

        ManifestState state = store.load("main").block();
        assertThat(state.manifestVersion()).isEqualTo(folded.get() + 1);
        assertThat(state.head()).contains(landed.id());
        assertThat(landed.parentIds()).containsExactly(head.id());
        assertThat(state.table("node:Person").orElseThrow().version()).isEqualTo(13);
    }

    private void aPublishStagedBeforeLandsOnce(java.util.function.Supplier<Optional<Long>> compaction) throws Exception {
        long personPin = store.load("main").block().table("node:Person").orElseThrow().version();
        int commitsBefore = store.commits("main").collectList().block().size();
        Sinks.Empty<Void> release = Sinks.empty();
        // Planned on the state the store kept (this version), then held before its Lance commit.
        CompletableFuture<GraphCommit> racing = publisher.publish(move("main", ExpectedHead.exactly(head.id()), KNOWS, 2, 5),
                release.asMono()).toFuture();

        Optional<Long> compacted = compaction.get();
        assertThat(compacted).as("the manifest had fragments to fold").isPresent();
        release.tryEmitEmpty();
        GraphCommit landed = racing.get(60, TimeUnit.SECONDS);

        ManifestState state = store.load("main").block();
        assertThat(state.manifestVersion()).as("landed after the compaction").isGreaterThan(compacted.get());
        assertThat(state.head()).contains(landed.id());
        assertThat(landed.parentIds()).containsExactly(head.id());
        assertThat(state.table("edge:Knows").orElseThrow().version()).isEqualTo(5);
        assertThat(state.table("node:Person").orElseThrow().version()).isEqualTo(personPin);
        List<GraphCommit> commits = store.commits("main").collectList().block();
        assertThat(commits).hasSize(commitsBefore + 1);
        assertThat(commits.get(0)).isEqualTo(landed);
        // Exactly one stamp, head and table row each: a resurrected pre-compaction row would make a load fail or differ.
        assertThat(tables.count(state.manifest(), Optional.of("object_type <> 'graph_commit'")).block())
                .isEqualTo(tables.count(tables.open(store.ref("main"), java.util.OptionalLong.of(compacted.get())).block(),
                        Optional.of("object_type <> 'graph_commit'")).block());
    }
}

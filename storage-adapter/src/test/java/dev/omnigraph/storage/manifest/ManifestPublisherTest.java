package dev.omnigraph.storage.manifest;

import static dev.omnigraph.storage.manifest.ManifestFixture.KNOWS;
import static dev.omnigraph.storage.manifest.ManifestFixture.PERSON;
import static dev.omnigraph.storage.manifest.ManifestFixture.move;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.ManifestConflict;
import dev.omnigraph.storage.error.ReadSetChanged;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.OmnigraphException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

class ManifestPublisherTest extends ManifestStoreTestBase {
    ManifestBatchPublisher publisher;
    GraphCommit genesis;

    @BeforeEach
    void setUp() {
        publisher = new ManifestBatchPublisher(store);
        genesis = ManifestFixture.init(store);
    }

    long manifestHead(String branch) {
        return tables.head(store.ref(branch)).block();
    }

    @Test
    void initCreatesStampTablesGenesisAndHead() {
        ManifestState state = store.load("main").block();
        assertThat(state.head()).contains(genesis.id());
        assertThat(state.liveTables()).extracting(TableEntry::tableKey).containsExactly("edge:Knows", "node:Person");
        assertThat(state.table("node:Person")).contains(PERSON);
        assertThat(genesis.parentIds()).isEmpty();
        assertThat(genesis.manifestVersion()).isEqualTo(state.manifestVersion());
        assertThat(store.commits("main").collectList().block()).containsExactly(genesis);
    }

    @Test
    void anExactPublishLandsOneCommitWithLineageAndDeltas() {
        GraphCommit first = publisher.publish(move("main", ExpectedHead.exactly(genesis.id()), PERSON, 2, 3)).block();
        assertThat(first.parentIds()).containsExactly(genesis.id());
        assertThat(first.deltas()).containsExactly(new TableDelta("node:Person", 2, 3));
        assertThat(first.actorId()).contains("tester");

        ManifestState state = store.load("main").block();
        assertThat(state.manifestVersion()).isEqualTo(genesis.manifestVersion() + 1).isEqualTo(first.manifestVersion());
        assertThat(state.head()).contains(first.id());
        assertThat(state.table("node:Person").orElseThrow().version()).isEqualTo(3);
        assertThat(state.table("node:Person").orElseThrow().rowCount()).isEqualTo(30);
        assertThat(state.table("edge:Knows")).contains(KNOWS);

        GraphCommit second = publisher.publish(move("main", ExpectedHead.exactly(first.id()), KNOWS, 2, 5)).block();
        assertThat(store.commits("main").map(GraphCommit::id).collectList().block())
                .containsExactly(second.id(), first.id(), genesis.id());
        assertThat(store.commit(first.id()).block()).isEqualTo(first);

        // Time travel: the genesis manifest version still shows the original pins.
        ManifestState old = store.loadAt("main", genesis.manifestVersion()).block();
        assertThat(old.table("node:Person").orElseThrow().version()).isEqualTo(2);
        assertThat(old.head()).contains(genesis.id());
    }

    @Test
    void wrongExpectationsAreRefusedAndChangeNothing() {
        long before = manifestHead("main");
        // A moved graph head is a read-set conflict on graph_head:<branch> (the reference's code and member).
        assertThatThrownBy(() -> publisher.publish(move("main", ExpectedHead.exactly(Ulid.next()), PERSON, 2, 3)).block())
                .isInstanceOfSatisfying(ReadSetChanged.class, e -> {
                    assertThat(e.code().wireName()).isEqualTo("read_set_conflict");
                    assertThat(e.what()).isEqualTo("graph_head:main");
                    assertThat(e.actual()).isEqualTo(genesis.id());
                });
        assertThatThrownBy(() -> publisher.publish(move("main", ExpectedHead.absent(), PERSON, 2, 3)).block())
                .isInstanceOf(ReadSetChanged.class).hasMessageContaining("<none>");
        assertThatThrownBy(() -> publisher.publish(move("main", ExpectedHead.exactly(genesis.id()), PERSON, 7, 8)).block())
                .isInstanceOfSatisfying(ManifestConflict.class, e -> {
                    assertThat(e.what()).isEqualTo("pin of node:Person");
                    assertThat(e.expected()).isEqualTo("7");
                    assertThat(e.actual()).isEqualTo("2");
                });
        assertThat(manifestHead("main")).isEqualTo(before);
        assertThat(store.commits("main").collectList().block()).containsExactly(genesis);
    }

    @Test
    void branchIdentityIsCheckedAndBranchCommitsParentOntoTheForkPoint() {
        TableRef mainRef = store.ref("main");
        tables.createBranch(mainRef, manifestHead("main"), "feature").block();
        BranchIdentity identity = store.branchIdentity("feature").block();
        assertThat(identity.parent()).isEmpty();

        ManifestState fresh = store.load("feature").block();
        assertThat(fresh.head()).isEmpty();

        BranchIdentity impostor = new BranchIdentity("feature", Optional.empty(), identity.parentVersion(), identity.createdAt() + 1);
        PublishRequest wrongIdentity = new PublishRequest("feature", ExpectedHead.absent(), Optional.of(impostor),
                Map.of(), List.of(), Ulid.next(), Optional.empty(), Optional.empty(), ManifestFixture.micros(), "mutation");
        assertThatThrownBy(() -> publisher.publish(wrongIdentity).block()).isInstanceOf(ManifestConflict.class)
                .hasMessageContaining("identity of branch feature");

        PublishRequest onBranch = new PublishRequest("feature", ExpectedHead.absent(), Optional.of(identity),
                Map.of("node:Person", 2L), List.of(PERSON.pinnedAt(3, Optional.of("feature"), 1)), Ulid.next(),
                Optional.empty(), Optional.empty(), ManifestFixture.micros(), "mutation");
        GraphCommit branchCommit = publisher.publish(onBranch).block();
        assertThat(branchCommit.parentIds()).containsExactly(genesis.id());
        assertThat(branchCommit.branch()).contains("feature");
        assertThat(store.load("feature").block().table("node:Person").orElseThrow().lanceBranch()).contains("feature");
        // main is untouched
        assertThat(store.load("main").block().table("node:Person")).contains(PERSON);
        assertThat(store.commits("feature").map(GraphCommit::id).collectList().block())
                .containsExactly(branchCommit.id(), genesis.id());
        assertThat(store.commit(branchCommit.id()).block().branchName()).isEqualTo("feature");

        assertThatThrownBy(() -> publisher.publish(move("ghost", ExpectedHead.absent(), PERSON, 2, 3)).block())
                .isInstanceOf(NotFound.class);
    }

    @Test
    void eightConcurrentExactPublishersOnOneHeadLandExactlyOne() {
        List<PublishRequest> racers = Flux.range(0, 8)
                .map(i -> move("main", ExpectedHead.exactly(genesis.id()), i % 2 == 0 ? PERSON : KNOWS, 2, 3 + i))
                .collectList().block();
        List<Object> outcomes = Flux.fromIterable(racers)
                .flatMap(request -> publisher.publish(request).<Object>map(c -> c)
                        .onErrorResume(OmnigraphException.class, Mono::just), 8)
                .collectList().block();
        List<GraphCommit> landed = outcomes.stream().filter(GraphCommit.class::isInstance).map(GraphCommit.class::cast).toList();
        assertThat(landed).hasSize(1);
        assertThat(outcomes).filteredOn(ReadSetChanged.class::isInstance).hasSize(7);
        assertThat(store.load("main").block().head()).contains(landed.get(0).id());
        assertThat(store.commits("main").collectList().block()).hasSize(2);
    }

    @Test
    void twoPublishesThatBothPassedTheirChecksCannotBothLand() {
        // Both planned against the same manifest version: the shared stamp-row rewrite makes Lance refuse the second.
        ManifestState state = store.load("main").block();
        List<Map<String, Object>> first = List.of(ManifestRows.stamp(ManifestSchema.INTERNAL_SCHEMA_VERSION),
                ManifestRows.head("main", "A"));
        List<Map<String, Object>> second = List.of(ManifestRows.stamp(ManifestSchema.INTERNAL_SCHEMA_VERSION),
                ManifestRows.head("main", "B"), ManifestRows.table(KNOWS.pinnedAt(9, Optional.empty(), 1)));
        var a = tables.stageUpsert(state.manifest(), first, ManifestSchema.OBJECT_ID, Map.of()).block();
        var b = tables.stageUpsert(state.manifest(), second, ManifestSchema.OBJECT_ID, Map.of()).block();
        tables.commitStaged(a).block();
        assertThatThrownBy(() -> tables.commitStaged(b).block()).isInstanceOf(dev.omnigraph.storage.error.CommitConflict.class);
        assertThat(store.load("main").block().head()).contains("A");
        assertThat(store.load("main").block().table("edge:Knows")).contains(KNOWS);
    }

    @Test
    void anyHeadPublishersRetryAndFormOneLinearChain() {
        List<GraphCommit> landed = Flux.range(0, 4)
                .flatMap(i -> publisher.publish(new PublishRequest("main", ExpectedHead.any(), Optional.empty(),
                        Map.of(), List.of(), Ulid.next(), Optional.empty(), Optional.empty(), ManifestFixture.micros(),
                        "maintenance")), 4)
                .collectList().block();
        assertThat(landed).hasSize(4);
        List<GraphCommit> chain = store.commits("main").collectList().block();
        assertThat(chain).hasSize(5);
        for (int i = 0; i < chain.size() - 1; i++) {
            assertThat(chain.get(i).parentIds()).containsExactly(chain.get(i + 1).id());
        }
    }

    @Test
    void aRootWithoutAManifestIsNotAGraph() {
        ManifestStore nowhere = ManifestFixture.store(root.resolve("empty").toString(), tables);
        assertThatThrownBy(() -> nowhere.load("main").block()).isInstanceOf(NotFound.class).hasMessageContaining("run init");
        assertThat(tables.open(store.ref("main"), OptionalLong.empty()).block().rowCount()).isEqualTo(5);
    }

    @Test
    void theManifestIsCompactedAsPublishesAccumulateAndTimeTravelStillWorks() {
        GraphCommit previous = genesis;
        for (int i = 0; i < ManifestBatchPublisher.COMPACT_AT_FRAGMENTS + 5; i++) {
            previous = publisher.publish(move("main", ExpectedHead.exactly(previous.id()), PERSON, 2 + i, 3 + i)).block();
        }
        var latest = tables.open(store.ref("main"), OptionalLong.empty()).block();
        assertThat(latest.fragmentCount()).isLessThan(ManifestBatchPublisher.COMPACT_AT_FRAGMENTS);
        ManifestState state = store.load("main").block();
        assertThat(state.head()).contains(previous.id());
        assertThat(state.table("node:Person").orElseThrow().version()).isEqualTo(previous.deltas().get(0).toVersion());
        assertThat(store.commits("main").collectList().block()).hasSize(ManifestBatchPublisher.COMPACT_AT_FRAGMENTS + 6);
        assertThat(store.loadAt("main", genesis.manifestVersion()).block().table("node:Person")).contains(PERSON);
    }
}

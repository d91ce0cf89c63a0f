package dev.omnigraph.storage.manifest;

import static dev.omnigraph.storage.manifest.ManifestFixture.KNOWS;
import static dev.omnigraph.storage.manifest.ManifestFixture.PERSON;
import static dev.omnigraph.storage.manifest.ManifestFixture.move;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.TableSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The tail of {@code __manifest}: a publish planned on the state its store kept writes the rows of the newest fragment
 * again beside its own and removes that fragment whole, so the commits since the last fold live in one small fragment
 * instead of one fragment (and one deletion file) per publish. The logical rows of every version stay as they were.
 */
class ManifestTailTest extends ManifestStoreTestBase {
    @Test
    void publishesOfOneStoreKeepOneTailFragmentAndEveryVersionReadsAsPublished() throws IOException {
        GraphCommit head = ManifestFixture.init(store);
        ManifestBatchPublisher publisher = new ManifestBatchPublisher(store);
        // The first two publishes delete the rows they rewrite in the genesis fragment (one deletion file each);
        // from then on every state row lives in the tail.
        head = publisher.publish(move("main", ExpectedHead.exactly(head.id()), PERSON, 2, 3)).block();
        List<GraphCommit> published = new ArrayList<>(List.of(head));
        head = publisher.publish(move("main", ExpectedHead.exactly(head.id()), KNOWS, 2, 3)).block();
        published.add(head);
        TableSnapshot afterFirst = tables.open(store.ref("main"), OptionalLong.empty()).block();
        long deletionFilesAfterFirst = deletionFiles();
        int publishes = ManifestBatchPublisher.TAIL_COMMITS - 2;
        long person = 3;
        long knows = 3;
        for (int i = 2; i < publishes; i++) {
            // Alternate the tables, so a tail also carries a table row this publish does not rewrite.
            PublishRequest request = i % 2 == 0
                    ? move("main", ExpectedHead.exactly(head.id()), PERSON, person, ++person)
                    : move("main", ExpectedHead.exactly(head.id()), KNOWS, knows, ++knows);
            head = publisher.publish(request).block();
            published.add(head);
        }
        TableSnapshot latest = tables.open(store.ref("main"), OptionalLong.empty()).block();
        assertThat(latest.version()).as("one version per publish: no fold yet").isEqualTo(afterFirst.version() + publishes - 2);
        assertThat(latest.fragmentCount()).as("the tail replaced, not one fragment per publish")
                .isEqualTo(afterFirst.fragmentCount());
        assertThat(deletionFiles()).as("a tail is removed whole, without a deletion file").isEqualTo(deletionFilesAfterFirst);
        Map<Integer, Long> live = tables.liveRowsByFragment(latest).block();
        int newest = live.keySet().stream().mapToInt(Integer::intValue).max().orElseThrow();
        List<Map<String, Object>> tail = tables.scan(latest, ScanRequest.all().onFragments(List.of(newest)))
                .flatMapIterable(RowBatch::rows).collectList().block();
        assertThat(tail.stream().filter(row -> ManifestSchema.TYPE_COMMIT.equals(row.get(ManifestSchema.OBJECT_TYPE))))
                .as("every commit since the first publish").hasSize(publishes);

        // Every version reads as its publish left it, through a store that kept nothing (time travel).
        ManifestStore fresh = ManifestFixture.store(root.toString(), tables);
        for (GraphCommit commit : published) {
            ManifestState at = fresh.loadAt("main", commit.manifestVersion()).block();
            assertThat(at.head()).as("head at version %d", commit.manifestVersion()).contains(commit.id());
        }
        ManifestState state = fresh.load("main").block();
        assertThat(state.table("node:Person").orElseThrow().version()).isEqualTo(person);
        assertThat(state.table("edge:Knows").orElseThrow().version()).isEqualTo(knows);
        List<GraphCommit> commits = fresh.commits("main").collectList().block();
        assertThat(commits).hasSize(publishes + 1);
        List<GraphCommit> newestFirst = new ArrayList<>(published);
        java.util.Collections.reverse(newestFirst);
        assertThat(commits.subList(0, publishes)).containsExactlyElementsOf(newestFirst);
        assertThat(tables.count(latest, java.util.Optional.of("object_type <> 'graph_commit'")).block())
                .as("one stamp, two table rows, one head").isEqualTo(4);
    }

    @Test
    void aFullTailFoldsAndTheNextTailStartsAfterIt() {
        GraphCommit head = ManifestFixture.init(store);
        ManifestBatchPublisher publisher = new ManifestBatchPublisher(store);
        long version = store.load("main").block().manifestVersion();
        int folds = 0;
        int publishes = 3 * ManifestBatchPublisher.TAIL_COMMITS + 3;
        for (int i = 0; i < publishes; i++) {
            head = publisher.publish(move("main", ExpectedHead.exactly(head.id()), PERSON, 2 + i, 3 + i)).block();
            long now = tables.open(store.ref("main"), OptionalLong.empty()).block().version();
            folds += now > version + 1 ? 1 : 0;
            version = now;
        }
        assertThat(folds).as("a fold per full tail").isEqualTo(3);
        TableSnapshot latest = tables.open(store.ref("main"), OptionalLong.empty()).block();
        assertThat(latest.fragmentCount()).as("a few folded fragments, the fold's state rows and the tail")
                .isLessThanOrEqualTo(6);
        ManifestState state = ManifestFixture.store(root.toString(), tables).load("main").block();
        assertThat(state.head()).contains(head.id());
        assertThat(state.table("node:Person").orElseThrow().version()).isEqualTo(2 + publishes);
        assertThat(store.commits("main").count().block()).isEqualTo(publishes + 1);
    }

    @Test
    void aPublishOfAnotherStoreLeavesTheTailAndTheNextPublishStartsAnother() {
        GraphCommit head = ManifestFixture.init(store);
        ManifestBatchPublisher publisher = new ManifestBatchPublisher(store);
        for (int i = 0; i < 3; i++) {
            head = publisher.publish(move("main", ExpectedHead.exactly(head.id()), PERSON, 2 + i, 3 + i)).block();
        }
        int before = tables.open(store.ref("main"), OptionalLong.empty()).block().fragmentCount();
        // Another process publishes: this store's kept state (and tail) is stale; its next publish loses its CAS,
        // loads afresh and writes its own rows only.
        head = new ManifestBatchPublisher(ManifestFixture.store(root.toString(), tables))
                .publish(move("main", ExpectedHead.exactly(head.id()), KNOWS, 2, 3)).block();
        head = publisher.publish(move("main", ExpectedHead.exactly(head.id()), PERSON, 5, 6)).block();
        assertThat(tables.open(store.ref("main"), OptionalLong.empty()).block().fragmentCount()).isEqualTo(before + 2);
        ManifestState state = ManifestFixture.store(root.toString(), tables).load("main").block();
        assertThat(state.head()).contains(head.id());
        assertThat(state.table("edge:Knows").orElseThrow().version()).isEqualTo(3);
        assertThat(state.table("node:Person").orElseThrow().version()).isEqualTo(6);
        assertThat(store.commits("main").count().block()).isEqualTo(6);
    }

    private long deletionFiles() throws IOException {
        java.nio.file.Path deletions = root.resolve("__manifest/_deletions");
        if (!Files.exists(deletions)) return 0;
        try (Stream<java.nio.file.Path> files = Files.list(deletions)) {
            return files.count();
        }
    }
}

package dev.omnigraph.storage.manifest;

import static dev.omnigraph.storage.manifest.ManifestFixture.PERSON;
import static dev.omnigraph.storage.manifest.ManifestFixture.move;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The publisher's fold of {@code __manifest}: same rows, and manifest files that stop growing with the lineage. */
class ManifestFoldTest extends ManifestStoreTestBase {
    @Test
    void theGroupIsTheNewestFragmentsAndAnOlderOneJoinsOnlyOnceTheyHaveCaughtUpWithIt() {
        assertThat(ManifestFold.group(rows(10, 3, 1, 1), 10)).as("3 > 1 + 1: the partial tail stays")
                .containsExactly(2, 3);
        assertThat(ManifestFold.group(rows(10, 2, 1, 1), 10)).containsExactly(1, 2, 3);
        assertThat(ManifestFold.group(rows(40, 6, 1, 1, 1, 1, 1, 1), 40)).as("6 <= 6").containsExactly(1, 2, 3, 4, 5, 6, 7);
        assertThat(ManifestFold.group(rows(40, 9, 4, 2, 1, 1), 10)).as("within the target: 9 cannot join 8")
                .containsExactly(2, 3, 4, 5);
        assertThat(ManifestFold.group(rows(3, 4, 3, 2), 10)).as("one alone is no fold").isEmpty();
        assertThat(ManifestFold.group(rows(10, 4), 10)).isEmpty();
        assertThat(ManifestFold.group(rows(10, 10), 10)).isEmpty();
    }

    @Test
    void aPartialTailIsNotWrittenAgainByEveryFold() {
        // The tail of 1,000 rows takes 32 publishes of ~2 rows only once those have grown past it: five folds of
        // 32 publishes leave it as it is; the old rule wrote it again at every fold.
        Map<Integer, Long> fragments = rows(8_192, 1_000);
        int rewrittenTail = 0;
        for (int fold = 0; fold < 5; fold++) {
            for (int p = 0; p < 32; p++) fragments.put(fragments.size(), 2L);
            List<Integer> group = ManifestFold.group(fragments, 8_192);
            rewrittenTail += group.contains(1) ? 1 : 0;
            long merged = group.stream().mapToLong(fragments::get).sum();
            Map<Integer, Long> next = new LinkedHashMap<>();
            fragments.forEach((id, rows) -> { if (!group.contains(id)) next.put(next.size(), rows); });
            next.put(next.size(), merged);
            fragments = next;
        }
        assertThat(rewrittenTail).isZero();
        assertThat(fragments.size()).as("a few tiers beside the full fragment and the tail").isLessThanOrEqualTo(6);
    }

    @Test
    void manifestFilesStayFlatAsThePublishesGrowAndEveryRowReadsTheSame() {
        GraphCommit genesis = ManifestFixture.init(store);
        ManifestBatchPublisher publisher = new ManifestBatchPublisher(store);
        GraphCommit head = genesis;
        int publishes = 300;
        int fragments = 1;
        List<Long> afterFolds = new ArrayList<>();
        for (int i = 0; i < publishes; i++) {
            head = publisher.publish(move("main", ExpectedHead.exactly(head.id()), PERSON, 2 + i, 3 + i)).block();
            int now = tables.open(store.ref("main"), OptionalLong.empty()).block().fragmentCount();
            if (now < fragments) afterFolds.add(newestManifestBytes());
            fragments = now;
        }
        assertThat(afterFolds).as("the publisher folded every ~32 publishes").hasSizeGreaterThanOrEqualTo(8);
        // Lance's compaction keeps one row-id run and one version run per publish in every later manifest file
        // (about 18 bytes per publish: some 4,000 bytes more by the last fold here). Folded rows are one run each.
        assertThat(afterFolds.get(afterFolds.size() - 1) - afterFolds.get(0)).as("manifest file growth from the "
                + "first fold to the last, bytes: %s", afterFolds).isLessThan(500);
        assertThat(tables.open(store.ref("main"), OptionalLong.empty()).block().fragmentCount())
                .isLessThanOrEqualTo(ManifestBatchPublisher.COMPACT_AT_FRAGMENTS + 1);
        ManifestState state = store.load("main").block();
        assertThat(state.head()).contains(head.id());
        assertThat(state.table("node:Person").orElseThrow().version()).isEqualTo(2 + publishes);
        List<GraphCommit> commits = store.commits("main").collectList().block();
        assertThat(commits).hasSize(publishes + 1);
        assertThat(commits.get(0)).isEqualTo(head);
        assertThat(store.commit(genesis.id()).block()).isEqualTo(genesis);
        assertThat(store.loadAt("main", genesis.manifestVersion()).block().table("node:Person").orElseThrow().version())
                .isEqualTo(2);
    }

    @Test
    void everyManifestVersionNamesItsWriterAPublishItsCommitAndAFoldItself() {
        GraphCommit head = ManifestFixture.init(store);
        long from = head.manifestVersion();
        ManifestBatchPublisher publisher = new ManifestBatchPublisher(store);
        for (int i = 0; i < ManifestBatchPublisher.COMPACT_AT_FRAGMENTS + 2; i++) {
            head = publisher.publish(move("main", ExpectedHead.exactly(head.id()), PERSON, 2 + i, 3 + i)).block();
        }
        long latest = tables.head(store.ref("main")).block();
        List<java.util.Optional<dev.omnigraph.storage.TransactionMark>> commits =
                tables.transactionMarks(store.ref("main"), from, latest, "omnigraph.commit_id").block();
        List<java.util.Optional<dev.omnigraph.storage.TransactionMark>> writers =
                tables.transactionMarks(store.ref("main"), from, latest, "omnigraph.writer").block();
        long folds = 0;
        for (int i = 0; i < commits.size(); i++) {
            boolean publish = commits.get(i).orElseThrow().mark().isPresent();
            java.util.Optional<String> writer = writers.get(i).orElseThrow().mark();
            assertThat(publish || writer.equals(java.util.Optional.of("manifest-fold"))).as("version %d", from + 1 + i).isTrue();
            folds += writer.isPresent() ? 1 : 0;
        }
        assertThat(folds).as("the publisher folded once").isEqualTo(1);
    }

    /** The size of the latest version's manifest file (named by its version, or inverted in Lance's V2 scheme). */
    private long newestManifestBytes() {
        long version = tables.head(store.ref("main")).block();
        Path versions = root.resolve("__manifest/_versions");
        Path plain = versions.resolve(version + ".manifest");
        try {
            return Files.size(Files.exists(plain) ? plain
                    : versions.resolve(Long.toUnsignedString(~version) + ".manifest"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<Integer, Long> rows(long... perFragment) {
        Map<Integer, Long> rows = new LinkedHashMap<>();
        for (int i = 0; i < perFragment.length; i++) rows.put(i, perFragment[i]);
        return rows;
    }
}

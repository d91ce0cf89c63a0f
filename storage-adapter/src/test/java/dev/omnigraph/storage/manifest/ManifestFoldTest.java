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
    void theGroupIsTheNewestFragmentsAndAnOlderOneJoinsOnceTheyHaveCaughtUpWithHalfOfIt() {
        assertThat(ManifestFold.group(rows(10, 5, 1, 1), 10)).as("5 > 2 × (1 + 1): the partial tail stays")
                .containsExactly(2, 3);
        assertThat(ManifestFold.group(rows(10, 4, 1, 1), 10)).as("4 <= 2 × 2").containsExactly(1, 2, 3);
        assertThat(ManifestFold.group(rows(40, 12, 1, 1, 1, 1, 1, 1), 40)).as("12 <= 2 × 6")
                .containsExactly(1, 2, 3, 4, 5, 6, 7);
        assertThat(ManifestFold.group(rows(40, 9, 4, 2, 1, 1), 10)).as("within the target: 9 cannot join 8")
                .containsExactly(2, 3, 4, 5);
        assertThat(ManifestFold.group(rows(3, 9, 2), 10)).as("one alone is no fold").isEmpty();
        assertThat(ManifestFold.group(rows(10, 4), 10)).isEmpty();
        assertThat(ManifestFold.group(rows(10, 10), 10)).isEmpty();
        // A tier a few rows short of the one before it (the state rows each fold carries are deleted by the next
        // publish) still merges with it: the exact rule stopped at 92 > 91 and the tiers piled up.
        assertThat(ManifestFold.group(rows(8_192, 92, 45, 22, 24), 8_192)).containsExactly(1, 2, 3, 4);
    }

    @Test
    void theTiersStayFewOverThousandsOfPublishes() {
        // The publisher's cycle on live row counts: each publish adds a fragment of 4 rows (commit, stamp, table,
        // head) and deletes the 3 state rows of the fragment before it; past COMPACT_AT_FRAGMENTS fragments beside
        // the full ones it folds the group into one fragment. The exact rule left ~30 tiers of ~100 rows by 2,000
        // publishes (measured in maintained-history, session 9), and then folded at nearly every publish.
        List<Long> fragments = new ArrayList<>();
        int folds = 0;
        int mostTiers = 0;
        for (int publish = 0; publish < 10_000; publish++) {
            if (!fragments.isEmpty()) fragments.set(fragments.size() - 1, fragments.get(fragments.size() - 1) - 3);
            fragments.add(4L);
            long rows = fragments.stream().mapToLong(Long::longValue).sum();
            if (fragments.size() < ManifestBatchPublisher.COMPACT_AT_FRAGMENTS + rows / ManifestBatchPublisher.MANIFEST_FRAGMENT_ROWS) {
                continue;
            }
            Map<Integer, Long> live = new LinkedHashMap<>();
            for (int i = 0; i < fragments.size(); i++) live.put(i, fragments.get(i));
            List<Integer> group = ManifestFold.group(live, ManifestBatchPublisher.MANIFEST_FRAGMENT_ROWS);
            if (group.isEmpty()) continue;
            folds++;
            long merged = group.stream().mapToLong(live::get).sum();
            fragments.subList(group.get(0), fragments.size()).clear();
            fragments.add(merged);
            mostTiers = Math.max(mostTiers, (int) fragments.stream().filter(n -> n > 1).count());
        }
        assertThat(mostTiers).as("fragments of more than one row, at most, after a fold").isLessThanOrEqualTo(12);
        assertThat(folds).as("a fold per ~30 publishes, not per few").isLessThan(10_000 / 20);
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
    void aFoldWritesCommitRowsApartFromTheStateRows() {
        GraphCommit head = ManifestFixture.init(store);
        ManifestBatchPublisher publisher = new ManifestBatchPublisher(store);
        int publishes = 2 * ManifestBatchPublisher.COMPACT_AT_FRAGMENTS + 5;
        for (int i = 0; i < publishes; i++) {
            head = publisher.publish(move("main", ExpectedHead.exactly(head.id()), PERSON, 2 + i, 3 + i)).block();
        }
        dev.omnigraph.storage.TableSnapshot manifest = tables.open(store.ref("main"), OptionalLong.empty()).block();
        Map<Integer, Long> live = tables.liveRowsByFragment(manifest).block();
        int lineageFragments = 0;
        for (Map.Entry<Integer, Long> fragment : live.entrySet()) {
            List<Object> types = tables.scan(manifest, dev.omnigraph.storage.ScanRequest.all()
                            .onFragments(List.of(fragment.getKey())))
                    .flatMapIterable(dev.omnigraph.storage.RowBatch::rows)
                    .map(row -> row.get(ManifestSchema.OBJECT_TYPE)).distinct().collectList().block();
            if (fragment.getValue() > 8) {
                lineageFragments++;
                // Table rows' mostly-null columns would otherwise be stored for every commit row of the fragment.
                assertThat(types).as("fragment %d", fragment.getKey()).containsExactly(ManifestSchema.TYPE_COMMIT);
            }
        }
        assertThat(lineageFragments).as("folded lineage fragments").isGreaterThanOrEqualTo(1);
        ManifestState state = store.load("main").block();
        assertThat(state.head()).contains(head.id());
        assertThat(state.table("node:Person").orElseThrow().version()).isEqualTo(2 + publishes);
        assertThat(state.table("edge:Knows")).as("an untouched table row, carried by the folds").isPresent();
        assertThat(store.commits("main").count().block()).isEqualTo(publishes + 1);
    }

    @Test
    void manifestFilesStayFlatAsThePublishesGrowAndEveryRowReadsTheSame() {
        GraphCommit genesis = ManifestFixture.init(store);
        ManifestBatchPublisher publisher = new ManifestBatchPublisher(store);
        GraphCommit head = genesis;
        int publishes = 300;
        long version = store.load("main").block().manifestVersion();
        List<Long> afterFolds = new ArrayList<>();
        for (int i = 0; i < publishes; i++) {
            head = publisher.publish(move("main", ExpectedHead.exactly(head.id()), PERSON, 2 + i, 3 + i)).block();
            long now = tables.open(store.ref("main"), OptionalLong.empty()).block().version();
            if (now > version + 1) afterFolds.add(newestManifestBytes()); // the publish's version and the fold's
            version = now;
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

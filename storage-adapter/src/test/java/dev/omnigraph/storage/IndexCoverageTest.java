package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.error.StorageFault;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Index coverage read from the manifest's index section, on a real Lance table: an index covers the fragments it
 * was built from, an append or a compaction of unindexed fragments leaves it partial, a rebuild covers them all;
 * and the fragment comparison that proves versions changed no data.
 */
class IndexCoverageTest extends LanceStorageTestBase {
    static final IndexSpec ID = new IndexSpec("og_btree_id", "id", IndexSpec.Kind.BTREE, 0);

    long append(TableRef ref, int from, int to) {
        TableSnapshot base = storage.open(ref, OptionalLong.empty()).block();
        return storage.commitStaged(storage.stageAppend(base, LanceTableStorageTest.people(from, to), Map.of()).block())
                .block().version();
    }

    @Test
    void anIndexCoversTheFragmentsItWasBuiltFromUntilRebuilt() {
        TableRef ref = TableRef.main(storage.create(dir.resolve("people").toString(), LanceTableStorageTest.PEOPLE)
                .block().ref().path());
        append(ref, 0, 5);
        long second = append(ref, 5, 10);
        long indexed = storage.createIndex(ref, second, ID).block();
        assertThat(storage.partialIndexes(ref, indexed).block()).isEmpty();

        long appended = append(ref, 10, 15);
        long more = append(ref, 15, 20);
        assertThat(storage.partialIndexes(ref, appended).block()).containsExactly(ID.name());
        assertThat(storage.partialIndexes(ref, indexed).block()).as("an older version keeps its own coverage").isEmpty();

        // Compaction keeps indexed and unindexed fragments apart: the index is still partial afterwards.
        long compacted = storage.compactFragments(ref).block().orElseThrow();
        assertThat(compacted).isGreaterThan(more);
        assertThat(storage.partialIndexes(ref, compacted).block()).containsExactly(ID.name());
        assertThat(storage.sameFragments(ref, more, compacted).block()).isFalse();

        long rebuilt = storage.rebuildIndex(ref, compacted, ID).block();
        assertThat(rebuilt).isEqualTo(compacted + 1);
        assertThat(storage.indexNames(ref, rebuilt).block()).containsExactly(ID.name());
        assertThat(storage.partialIndexes(ref, rebuilt).block()).isEmpty();
        assertThat(storage.sameFragments(ref, compacted, rebuilt).block()).as("an index build moves no fragment").isTrue();
        assertThat(storage.count(storage.open(ref, OptionalLong.of(rebuilt)).block(), java.util.Optional.of("id = 'p17'")).block()).isEqualTo(1);
        // History names them without reading an index transaction (that would abort the JVM): the compaction's
        // Rewrite (which renews the remapped index's uuid) is read, the rebuild under the same name is recognised.
        assertThat(storage.operationsBetween(ref, more, rebuilt).block()).endsWith("Rewrite", "CreateIndex")
                .allMatch(operation -> TableHistory.isMaintenance(operation) || operation.equals("CreateIndex"));
    }

    @Test
    void theTransactionOfAnIndexBuildIsNeverRead() {
        // Recovery asks for the transaction at expected + 1, which may be a foreign index build: reading it through
        // Lance would abort this JVM, so the build is recognised and answered as "no data transaction".
        TableRef ref = TableRef.main(storage.create(dir.resolve("people").toString(), LanceTableStorageTest.PEOPLE)
                .block().ref().path());
        long appended = append(ref, 0, 5);
        long indexed = storage.createIndex(ref, appended, ID).block();
        long rebuilt = storage.rebuildIndex(ref, indexed, ID).block();
        assertThat(storage.transactionAt(ref, indexed).block()).isEmpty();
        assertThat(storage.transactionAt(ref, rebuilt).block()).isEmpty();
        assertThat(storage.transactionAt(ref, appended).block()).hasValueSatisfying(
                identity -> assertThat(identity.readVersion()).isEqualTo(appended - 1));
    }

    @Test
    void aRebuildNeedsTheIndexAndTheExpectedVersion() {
        TableRef ref = TableRef.main(storage.create(dir.resolve("people").toString(), LanceTableStorageTest.PEOPLE)
                .block().ref().path());
        long version = append(ref, 0, 5);
        assertThatThrownBy(() -> storage.rebuildIndex(ref, version, ID).block()).isInstanceOf(StorageFault.class)
                .hasMessageContaining("does not exist");
        long indexed = storage.createIndex(ref, version, ID).block();
        assertThat(storage.head(ref).block()).isEqualTo(indexed);
        assertThatThrownBy(() -> storage.rebuildIndex(ref, version, ID).block()).isInstanceOf(dev.omnigraph.storage.error.ReadSetChanged.class);
        assertThat(storage.head(ref).block()).isEqualTo(indexed);
        assertThat(List.of(storage.partialIndexes(ref, indexed).block())).containsExactly(List.of());
    }
}

package dev.omnigraph.storage;

import static dev.omnigraph.storage.LanceTableStorageTest.PEOPLE;
import static dev.omnigraph.storage.LanceTableStorageTest.people;
import static dev.omnigraph.storage.LanceTableStorageTest.person;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A writer that arms its sidecar beside staging names the transaction by an intent id minted before staging and
 * stored as a Lance transaction property: the staged handle, the commit's read-back and the table history all
 * report it, so recovery can recognise the transaction without its uuid.
 */
class TransactionIntentTest extends LanceStorageTestBase {
    @Test
    void theIntentIdTravelsFromTheStagedTransactionToItsCommitAndItsHistory() {
        TableSnapshot empty = storage.create(dir.resolve("people").toString(), PEOPLE).block();
        Map<String, String> properties = TransactionIdentity.withIntent(Map.of("omnigraph.writer", "test"), "01INTENT");
        StagedHandle append = storage.stageAppend(empty, people(0, 2), properties).block();
        assertThat(append.identity().intent()).isEqualTo("01INTENT");
        assertThat(append.identity().readVersion()).isEqualTo(empty.version());
        CommittedVersion landed = storage.commitStaged(append).block();
        assertThat(landed.isExactly(append.identity())).isTrue();
        assertThat(landed.transaction().intent()).isEqualTo("01INTENT");
        assertThat(storage.transactionAt(empty.ref(), landed.version()).block()).contains(append.identity());

        // An upsert carries it too; a transaction staged without one reports none.
        StagedHandle upsert = storage.stageUpsert(landed.snapshot().orElseThrow(), List.of(person("p1", 7)), "id",
                TransactionIdentity.withIntent(Map.of(), "01OTHER")).block();
        assertThat(upsert.identity().intent()).isEqualTo("01OTHER");
        CommittedVersion upserted = storage.commitStaged(upsert).block();
        assertThat(storage.transactionAt(empty.ref(), upserted.version()).block().orElseThrow().intent()).isEqualTo("01OTHER");
        StagedHandle plain = storage.stageAppend(upserted.snapshot().orElseThrow(), people(5, 6), Map.of()).block();
        assertThat(plain.identity().intent()).isNull();
        storage.discard(plain).block();
    }
}

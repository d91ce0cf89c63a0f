package dev.omnigraph.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.recovery.Sidecar.Txn;
import dev.omnigraph.storage.TransactionIdentity;
import org.junit.jupiter.api.Test;

/** One rule names a transaction: by its uuid when the sidecar knows it, else by the intent id it carries. */
class SidecarTxnTest {
    @Test
    void aTransactionPlannedBeforeStagingIsRecognisedByItsIntentIdAndReadVersion() {
        Txn planned = Txn.planned(3, "01OP");
        assertThat(planned.identifies(new TransactionIdentity(3, "any-uuid", "01OP"))).isTrue();
        assertThat(planned.identifies(new TransactionIdentity(3, "any-uuid", "01OTHER"))).isFalse();
        assertThat(planned.identifies(new TransactionIdentity(4, "any-uuid", "01OP"))).isFalse();
        assertThat(planned.identifies(new TransactionIdentity(3, "any-uuid"))).isFalse(); // a foreign commit carries none
    }

    @Test
    void aStagedTransactionIsRecognisedByItsUuidWhateverIntentItCarries() {
        Txn staged = Txn.of(new TransactionIdentity(3, "uuid-1", "01OP"));
        assertThat(staged.identifies(new TransactionIdentity(3, "uuid-1", "01OP"))).isTrue();
        assertThat(staged.identifies(new TransactionIdentity(3, "uuid-2", "01OP"))).isFalse();
        assertThat(new Txn(3, "uuid-1").identifies(new TransactionIdentity(3, "uuid-1", "01OP"))).isTrue();
        assertThat(new Txn(0, null).identifies(new TransactionIdentity(0, "uuid-1"))).isFalse(); // names nothing
    }

    @Test
    void aTransactionWithAUuidIsRecordedWithoutItsIntentSoOlderBuildsCanReadTheSidecar() {
        Txn staged = Txn.of(new TransactionIdentity(3, "uuid-1", "01OP"));
        assertThat(staged).isEqualTo(new Txn(3, "uuid-1"));
        Sidecar sample = SidecarStoreTest.sample("01SAMPLE");
        Sidecar.Effect effect = sample.protocolV3().effects().get(0);
        Sidecar.ProtocolV3 payload = sample.protocolV3();
        Sidecar recorded = sample.withPayload(sample.tables(), new Sidecar.ProtocolV3(payload.authority(),
                payload.lineage(), payload.rollbackGraphCommitId(), payload.effectPhase(), java.util.List.of(
                        new Sidecar.Effect(effect.identity(), effect.tableKey(), staged, staged)),
                payload.intendedDelta(), null));
        assertThat(SidecarStore.toJson(recorded)).doesNotContain("intent");
        assertThat(Txn.of(new TransactionIdentity(3, null, "01OP"))).isEqualTo(Txn.planned(3, "01OP"));
    }

    @Test
    void anIntentNamedTransactionRoundTripsAndAUuidNamedOneKeepsTheReferenceShape() {
        Sidecar sample = SidecarStoreTest.sample("01SAMPLE");
        Sidecar.Effect effect = sample.protocolV3().effects().get(0);
        Sidecar.ProtocolV3 payload = sample.protocolV3();
        Sidecar early = sample.withPayload(sample.tables(), new Sidecar.ProtocolV3(payload.authority(), payload.lineage(),
                payload.rollbackGraphCommitId(), payload.effectPhase(), java.util.List.of(new Sidecar.Effect(effect.identity(),
                effect.tableKey(), Txn.planned(3, "01SAMPLE"), null)), payload.intendedDelta(), null));
        String json = SidecarStore.toJson(early);
        assertThat(json).contains("\"planned_transaction\":{\"read_version\":3,\"intent\":\"01SAMPLE\"}");
        assertThat(SidecarStore.parse("01SAMPLE", json.getBytes(java.nio.charset.StandardCharsets.UTF_8))).isEqualTo(early);
        assertThat(SidecarStore.toJson(sample)).contains("\"planned_transaction\":{\"read_version\":3,\"uuid\":\"uuid-1\"}");
    }
}

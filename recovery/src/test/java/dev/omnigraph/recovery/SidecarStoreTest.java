package dev.omnigraph.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.recovery.Sidecar.Effect;
import dev.omnigraph.recovery.Sidecar.Identity;
import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.recovery.Sidecar.Txn;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.LocalObjectStore;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SidecarStoreTest {
    @TempDir
    Path root;

    static Sidecar sample(String operationId) {
        Identity identity = new Identity(4, 9);
        Sidecar.ProtocolV3 payload = new Sidecar.ProtocolV3(
                new Sidecar.Authority(new Sidecar.BranchIdentifier("main", null, 0, 0), "01HEAD", "irhash", "01DOMAIN"),
                new Sidecar.Lineage("01COMMIT", null, "alice", 1_700_000_000_000_000L, null, "mutation"),
                "01ROLLBACK", Sidecar.EffectPhase.Armed,
                List.of(new Effect(identity, "node:Person", new Txn(3, "uuid-1"), null)),
                new Sidecar.IntendedDelta(List.of(new Sidecar.TableUpdate(identity, "node:Person", 3, null, null))), null);
        return new Sidecar(Sidecar.SCHEMA_VERSION, operationId, "1700000000000000", null, "alice",
                Sidecar.WriterKind.Mutation,
                List.of(new TablePin(identity, "node:Person", "/g/nodes/x", 3, 4, null, null)), payload);
    }

    @Test
    void roundTripsInTheReferenceShape() throws Exception {
        SidecarStore store = new SidecarStore(new LocalObjectStore(root, StorageFixture.scheduler()));
        String id = Ulid.next();
        Sidecar sidecar = sample(id);
        store.write(sidecar).block();
        assertThat(store.read(id).block()).contains(sidecar);
        String json = Files.readString(root.resolve("__recovery/" + id + ".json"));
        assertThat(json).contains("\"schema_version\":9", "\"writer_kind\":\"Mutation\"", "\"protocol_v3\"",
                "\"planned_transaction\":{\"read_version\":3,\"uuid\":\"uuid-1\"}", "\"effect_phase\":\"Armed\"",
                "\"stable_table_id\":4").doesNotContain("\"branch\":null");
        assertThat(store.list().collectList().block()).containsExactly(sidecar);
        assertThat(store.delete(id).block()).isTrue();
        assertThat(store.list().collectList().block()).isEmpty();
    }

    @Test
    void listsInOperationOrderAndIgnoresOtherFiles() throws Exception {
        SidecarStore store = new SidecarStore(new LocalObjectStore(root, StorageFixture.scheduler()));
        String first = Ulid.next();
        String second = Ulid.next();
        store.write(sample(second)).block();
        store.write(sample(first)).block();
        Files.writeString(root.resolve("__recovery/notes.txt"), "ignored");
        assertThat(store.list().map(Sidecar::operationId).collectList().block()).containsExactly(first, second);
    }

    @Test
    void unreadableAndNewerSidecarsAreRefusedLoudlyAndKept() throws Exception {
        SidecarStore store = new SidecarStore(new LocalObjectStore(root, StorageFixture.scheduler()));
        Files.createDirectories(root.resolve("__recovery"));
        Files.writeString(root.resolve("__recovery/01BAD.json"), "{not json");
        assertThatThrownBy(() -> store.list().collectList().block()).isInstanceOfSatisfying(RecoveryRequired.class,
                e -> assertThat(e.operationId()).isEqualTo("01BAD")).hasMessageContaining("unreadable");
        assertThat(root.resolve("__recovery/01BAD.json")).exists();
        Files.delete(root.resolve("__recovery/01BAD.json"));
        Files.writeString(root.resolve("__recovery/01NEW.json"), "{\"schema_version\":10,\"operation_id\":\"01NEW\"}");
        assertThatThrownBy(() -> store.list().collectList().block()).isInstanceOf(RecoveryRequired.class)
                .hasMessageContaining("upgrade omnigraph");
    }

    @Test
    void injectedFaultsFailEachCallBeforeItsIoAndNeverReadAsNoSidecars() {
        Failpoints points = Failpoints.none();
        SidecarStore store = new SidecarStore(new LocalObjectStore(root, StorageFixture.scheduler()), points);
        String id = Ulid.next();
        points.arm(FailpointCatalog.SIDECAR_WRITE, new Failpoints.Action.Error());
        assertThatThrownBy(() -> store.write(sample(id)).block()).isInstanceOf(StorageFault.class);
        assertThat(root.resolve(SidecarStore.key(id))).doesNotExist();
        points.disarm(FailpointCatalog.SIDECAR_WRITE);
        store.write(sample(id)).block();

        points.arm(FailpointCatalog.SIDECAR_LIST, new Failpoints.Action.Error());
        assertThatThrownBy(() -> store.list().collectList().block()).isInstanceOf(StorageFault.class);
        points.disarm(FailpointCatalog.SIDECAR_LIST);

        points.arm(FailpointCatalog.SIDECAR_DELETE, new Failpoints.Action.Error());
        assertThatThrownBy(() -> store.delete(id).block()).isInstanceOf(StorageFault.class);
        assertThat(store.list().collectList().block()).hasSize(1);
        points.disarm(FailpointCatalog.SIDECAR_DELETE);
        assertThat(store.delete(id).block()).isTrue();
    }
}

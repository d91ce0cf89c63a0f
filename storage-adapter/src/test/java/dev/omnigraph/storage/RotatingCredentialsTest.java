package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.root.CredentialsSource;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.storage.root.S3ObjectStore;
import dev.omnigraph.storage.root.S3Settings;
import dev.omnigraph.storage.testing.S3TestServer;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Credentials that expire keep working on a long-lived storage: a supplier hands out keys with an expiry, the S3
 * server is rotated to accept only the next key, and once the first key is within the refresh margin of its expiry
 * the kept dataset handle opened with it is opened again with the new key — scans, new writes and the SDK client
 * all sign with it. Before that point the kept handle still signs with the old key and the server refuses it
 * (the fixture really rejects old keys); within the margin but with no fresher key to be had, the handle is kept.
 * Time is a fixed clock set by the test, not a wait.
 */
class RotatingCredentialsTest {
    private static final Instant T0 = Instant.parse("2030-01-01T00:00:00Z");

    private final LanceTableStorage storage = StorageFixture.newTableStorage();

    @AfterEach
    void close() {
        CredentialRefresh.useClock(Clock.systemUTC());
        storage.close();
    }

    @Test
    void keptHandlesNewOpensAndTheSdkUseTheRotatedKey() throws Exception {
        CredentialRefresh.useClock(Clock.fixed(T0, ZoneOffset.UTC));
        try (S3TestServer server = S3TestServer.start()) {
            server.root("rotate", "graph"); // creates the bucket
            server.acceptOnly("key-1", "secret-1");
            AtomicReference<CredentialsSource.Expiring> issued =
                    new AtomicReference<>(expiring("key-1", "secret-1", T0.plus(Duration.ofHours(1))));
            AtomicInteger asked = new AtomicInteger();
            CredentialsSource source = CredentialsSource.supplied(() -> {
                asked.incrementAndGet();
                return issued.get();
            });
            GraphRoot.S3 root = new GraphRoot.S3("rotate", "graph", server.settings().withCredentials(source));
            LanceStorageOptions.register(root.uri(), root.lanceOptionsSource());
            S3ObjectStore files = new S3ObjectStore(root, StorageFixture.scheduler());

            String path = root.uri() + "/nodes/people";
            TableRef ref = TableRef.main(path);
            TableSnapshot empty = storage.create(path, LanceTableStorageTest.PEOPLE).block();
            storage.commitStaged(storage.stageAppend(empty, LanceTableStorageTest.people(0, 3), Map.of()).block()).block();
            TableSnapshot v2 = storage.open(ref, OptionalLong.empty()).block();
            assertThat(ids(v2)).hasSize(3);
            assertThat(storage.datasets().handles().size()).as("the scan kept its handle").isEqualTo(1);
            files.put("probe", "one".getBytes(StandardCharsets.UTF_8)).block();

            LanceHandles.Handle first = kept(ref, v2);
            Instant inMargin = T0.plus(Duration.ofHours(1)).minus(CredentialRefresh.margin()).plusSeconds(1);

            // Within key-1's margin while the source still gives key-1: asked again, the handle is kept.
            CredentialRefresh.useClock(Clock.fixed(inMargin, ZoneOffset.UTC));
            assertThat(ids(v2)).hasSize(3);
            assertThat(asked.get()).as("asked again within the margin").isGreaterThan(1);
            assertThat(kept(ref, v2)).as("same credentials: no re-open").isSameAs(first);
            int askedBefore = asked.get();

            // Rotation: the server takes key-2 only, the source gives key-2 from now on.
            CredentialRefresh.useClock(Clock.fixed(T0, ZoneOffset.UTC));
            server.acceptOnly("key-2", "secret-2");
            issued.set(expiring("key-2", "secret-2", T0.plus(Duration.ofHours(2))));

            // key-1 is not close to expiry at T0: the kept handle still signs with it, and the server refuses it.
            assertThatThrownBy(() -> ids(v2)).as("a scan signed with the rotated-out key").hasMessageContaining("403");
            assertThat(asked.get()).as("key-1 is not asked again before its margin").isEqualTo(askedBefore);

            // Within the margin again: the source gives key-2, so the handle is opened again with it.
            CredentialRefresh.useClock(Clock.fixed(inMargin, ZoneOffset.UTC));
            assertThat(ids(v2)).hasSize(3);
            assertThat(asked.get()).isEqualTo(askedBefore + 1);
            assertThat(kept(ref, v2)).isNotSameAs(first);
            assertThat(storage.datasets().handles().size()).isEqualTo(1);

            TableSnapshot head = storage.open(ref, OptionalLong.empty()).block();
            storage.commitStaged(storage.stageAppend(head, LanceTableStorageTest.people(3, 5), Map.of()).block()).block();
            assertThat(ids(storage.open(ref, OptionalLong.empty()).block())).hasSize(5);
            assertThat(files.get("probe").block()).hasValueSatisfying(bytes -> assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("one"));
            assertThat(asked.get()).as("key-2 is kept until its own margin").isEqualTo(askedBefore + 1);
        }
    }

    /** The handle scans of {@code at} use now (acquired and released on a storage thread). */
    private LanceHandles.Handle kept(TableRef ref, TableSnapshot at) {
        LanceHandles handles = storage.datasets().handles();
        return StorageFixture.scheduler().call(() -> {
            LanceHandles.Handle h = handles.acquire(ref, at.version());
            handles.release(h);
            return h;
        }).block();
    }

    private List<Object> ids(TableSnapshot at) {
        return storage.scan(at, ScanRequest.all().withColumns(List.of("id"))).flatMapIterable(RowBatch::rows)
                .map(r -> r.get("id")).collectList().block();
    }

    private static CredentialsSource.Expiring expiring(String key, String secret, Instant at) {
        return CredentialsSource.Expiring.at(new S3Settings.Credentials(key, secret, Optional.empty()), at);
    }
}

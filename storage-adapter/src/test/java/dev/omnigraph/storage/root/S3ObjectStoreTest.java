package dev.omnigraph.storage.root;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.testing.S3TestServer;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The S3 object store against a real S3-compatible server on loopback. */
class S3ObjectStoreTest {
    private static S3TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = S3TestServer.start();
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private static S3ObjectStore store(String prefix) {
        return new S3ObjectStore(server.root("objects", prefix), StorageFixture.scheduler());
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void putGetListDeleteUnderAPrefix() {
        S3ObjectStore files = store("graphs/one");
        S3ObjectStore sibling = store("graphs/one-other");
        files.put("__recovery/b.json", bytes("b")).block();
        files.put("__recovery/a.json", bytes("a")).block();
        files.put("schema.pg", bytes("s")).block();
        sibling.put("__recovery/z.json", bytes("z")).block();
        files.put("schema.pg", bytes("s2")).block();

        assertThat(new String(files.get("schema.pg").block().orElseThrow(), StandardCharsets.UTF_8)).isEqualTo("s2");
        assertThat(files.get("missing").block()).isEmpty();
        assertThat(files.list("__recovery/").block()).containsExactly("__recovery/a.json", "__recovery/b.json");
        assertThat(files.list("__recovery").block()).hasSize(2);
        assertThat(files.list("nothing/").block()).isEmpty();
        assertThat(files.exists("__recovery/a.json").block()).isTrue();
        assertThat(files.delete("__recovery/a.json").block()).isTrue();
        assertThat(files.delete("__recovery/a.json").block()).isFalse();
        assertThat(files.exists("__recovery/a.json").block()).isFalse();
        assertThat(files.rootUri()).isEqualTo("s3://objects/graphs/one");
    }

    @Test
    void listObjectsGivesSizeAndLastModifiedUnderThePrefixOnly() {
        S3ObjectStore files = store("graphs/sized");
        store("graphs/sized-other").put("t/x", bytes("other")).block();
        java.time.Instant before = java.time.Instant.now().minusSeconds(60);
        files.put("t/data/a.lance", bytes("abc")).block();
        files.put("t/_versions/1.manifest", bytes("m")).block();
        var listed = files.listObjects("t/").block();
        assertThat(listed).extracting(ObjectStore.StoredObject::key, ObjectStore.StoredObject::bytes).containsExactly(
                org.assertj.core.groups.Tuple.tuple("t/_versions/1.manifest", 1L),
                org.assertj.core.groups.Tuple.tuple("t/data/a.lance", 3L));
        assertThat(listed).allSatisfy(object -> assertThat(object.modified())
                .isAfter(before).isBefore(java.time.Instant.now().plusSeconds(60)));
        assertThat(files.listObjects("nothing/").block()).isEmpty();
    }

    @Test
    void putIfAbsentHasExactlyOneWinner() {
        S3ObjectStore files = store("claims");
        List<Boolean> results = reactor.core.publisher.Flux.range(0, 8)
                .flatMap(i -> files.putIfAbsent("claim", bytes("writer-" + i)))
                .collectList().block();
        assertThat(results).containsOnlyOnce(true);
        String winner = new String(files.get("claim").block().orElseThrow(), StandardCharsets.UTF_8);
        assertThat(winner).startsWith("writer-");
        files.requireConditionalWrites().block();
        assertThat(files.delete("claim").block()).isTrue();
        assertThat(files.exists("claim").block()).isFalse();
        assertThat(files.putIfAbsent("claim", bytes("again")).block()).as("a deleted key can be created again").isTrue();
    }

    @Test
    void replaceIfLandsOnlyOnTheVersionItRead() {
        S3ObjectStore files = store("versioned");
        assertThat(files.getVersioned("lease").block()).isEmpty();
        assertThat(files.replaceIf("lease", "\"whatever\"", bytes("x")).block()).as("absent key").isFalse();
        assertThat(files.exists("lease").block()).isFalse();
        files.putIfAbsent("lease", bytes("v1")).block();
        ObjectStore.Versioned v1 = files.getVersioned("lease").block().orElseThrow();
        assertThat(new String(v1.bytes(), StandardCharsets.UTF_8)).isEqualTo("v1");
        assertThat(files.replaceIf("lease", v1.version(), bytes("v2")).block()).isTrue();
        assertThat(files.replaceIf("lease", v1.version(), bytes("v3")).block()).as("stale version").isFalse();
        ObjectStore.Versioned v2 = files.getVersioned("lease").block().orElseThrow();
        assertThat(new String(v2.bytes(), StandardCharsets.UTF_8)).isEqualTo("v2");
        assertThat(v2.version()).isNotEqualTo(v1.version());
    }

    @Test
    void racingReplacesOfOneVersionHaveExactlyOneWinner() {
        S3ObjectStore files = store("cas");
        files.putIfAbsent("lease", bytes("start")).block();
        String read = files.getVersioned("lease").block().orElseThrow().version();
        List<Boolean> results = reactor.core.publisher.Flux.range(0, 8)
                .flatMap(i -> files.replaceIf("lease", read, bytes("writer-" + i)))
                .collectList().block();
        assertThat(results).containsOnlyOnce(true);
    }

    @Test
    void keysCannotEscapeTheRoot() {
        S3ObjectStore files = store("escape");
        for (String bad : List.of("../x", "/abs", "a//b", "a/./b", "", "a\u0000b", "a\\b")) {
            assertThatThrownBy(() -> files.put(bad, bytes("x")).block()).as(bad).isInstanceOf(BadRequest.class);
        }
    }

    @Test
    void anEndpointThatIgnoresConditionalWritesIsRefused() throws Exception {
        try (S3TestServer careless = S3TestServer.start(S3TestServer.Conditions.IGNORED)) {
            S3ObjectStore files = new S3ObjectStore(careless.root("careless", "g"), StorageFixture.scheduler());
            assertThatThrownBy(() -> files.requireConditionalWrites().block())
                    .isInstanceOf(StorageFault.class)
                    .hasMessageContaining("does not honour conditional writes")
                    .hasMessageContaining("s3://careless/g");
            // The same misbehaviour seen directly: the second create-if-absent "wins" too.
            assertThat(files.putIfAbsent("k", bytes("1")).block()).isTrue();
            assertThat(files.putIfAbsent("k", bytes("2")).block()).isTrue();
        }
    }

    /**
     * Stock S3Proxy compares If-Match in its request handler and then stores unconditionally: two PUTs naming one
     * ETag that overlap there both land. The server holds each probe replace until a second one arrives, so the
     * race the probe runs is certain to overlap, and the endpoint is refused.
     */
    @Test
    void anEndpointWhoseIfMatchIsNotAtomicIsRefused() throws Exception {
        try (S3TestServer racy = S3TestServer.start(S3TestServer.Conditions.IF_MATCH_RACY)) {
            overlapProbeReplaces(racy);
            S3ObjectStore files = new S3ObjectStore(racy.root("racy", "g"), StorageFixture.scheduler());
            assertThatThrownBy(() -> files.requireConditionalWrites().block())
                    .isInstanceOf(StorageFault.class)
                    .hasMessageContaining("concurrent PUTs with If-Match of one ETag all landed")
                    .hasMessageContaining("writer lease");
            assertThat(files.list("__probe/").block()).as("the probe object is removed").isEmpty();
            // Sequentially it looks right: a stale ETag is refused.
            files.put("k", bytes("1")).block();
            assertThat(files.replaceIf("k", "\"stale\"", bytes("2")).block()).isFalse();
        }
    }

    @Test
    void theTestServersIfMatchIsAtomic() throws Exception {
        try (S3TestServer honest = S3TestServer.start()) {
            overlapProbeReplaces(honest);
            new S3ObjectStore(honest.root("honest", "g"), StorageFixture.scheduler()).requireConditionalWrites().block();
        }
    }

    /** Holds the first If-Match PUT of a probe key on the server until a second one arrives, so they overlap. */
    private static void overlapProbeReplaces(S3TestServer server) {
        java.util.concurrent.CountDownLatch two = new java.util.concurrent.CountDownLatch(2);
        server.hook(new S3TestServer.PutHook() {
            @Override
            public void before(software.amazon.awssdk.services.s3.model.PutObjectRequest request) {
                if (request.ifMatch() != null && request.key().contains("__probe/")) {
                    two.countDown();
                    try {
                        two.await(30, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        });
    }

    @Test
    void anUnreachableEndpointIsAStorageFault() throws Exception {
        S3TestServer gone = S3TestServer.start();
        GraphRoot.S3 root = gone.root("gone", "g");
        gone.close();
        S3ObjectStore files = new S3ObjectStore(root, StorageFixture.scheduler());
        assertThatThrownBy(() -> files.get("x").block()).isInstanceOf(StorageFault.class)
                .hasMessageContaining("s3://gone/g/x");
    }
}

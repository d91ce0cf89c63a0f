package dev.omnigraph.storage.root;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
    void keysCannotEscapeTheRoot() {
        S3ObjectStore files = store("escape");
        for (String bad : List.of("../x", "/abs", "a//b", "a/./b", "")) {
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

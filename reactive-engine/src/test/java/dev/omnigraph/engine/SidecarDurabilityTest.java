package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.ObjectStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

/**
 * Which sidecar I/O of a single-row write must survive a power loss: the arm (it must exist before the first
 * effect) is a durable put; the confirmation, written beside the publish, and the removal after the publish may
 * come back as they were, so they skip the directory sync ({@code putLazily}, {@code deleteLazily}).
 */
class SidecarDurabilityTest {
    static final String QUERIES = """
            query addPerson($name: String) { insert Person { name: $name } }
            """;

    @TempDir
    Path dir;
    StorageServices services;
    Omnigraph graph;
    final List<String> calls = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() {
        services = EngineFixture.services().withObjectStores(Recording::new);
        graph = Omnigraph.init(services, dir.resolve("g"), EngineFixture.SOCIAL).block();
    }

    @AfterEach
    void tearDown() {
        graph.close();
        EngineFixture.close(services);
    }

    @Test
    void theArmIsDurableWhileTheConfirmationAndTheRemovalAreLazy() {
        graph.mutate("main", QUERIES, "addPerson", Map.of("name", "warm"), WriteOptions.DEFAULT).block();
        calls.clear();
        graph.mutate("main", QUERIES, "addPerson", Map.of("name", "ada"), WriteOptions.DEFAULT).block();

        List<String> sidecarIo = calls.stream().filter(call -> call.contains("__recovery/")).toList();
        assertThat(sidecarIo).hasSize(3);
        String key = sidecarIo.get(0).substring(sidecarIo.get(0).indexOf(' ') + 1);
        assertThat(sidecarIo).containsExactly("put " + key, "putLazily " + key, "deleteLazily " + key);
        assertThat(services.objectStore(dir.resolve("g")).list("__recovery/").block()).isEmpty();
    }

    /** The real local store, with every call recorded by method and key. */
    final class Recording implements ObjectStore {
        private final ObjectStore delegate;

        Recording(ObjectStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public String rootUri() {
            return delegate.rootUri();
        }

        @Override
        public Mono<Void> put(String key, byte[] bytes) {
            calls.add("put " + key);
            return delegate.put(key, bytes);
        }

        @Override
        public Mono<Void> putLazily(String key, byte[] bytes) {
            calls.add("putLazily " + key);
            return delegate.putLazily(key, bytes);
        }

        @Override
        public Mono<Boolean> putIfAbsent(String key, byte[] bytes) {
            calls.add("putIfAbsent " + key);
            return delegate.putIfAbsent(key, bytes);
        }

        @Override
        public Mono<Optional<byte[]>> get(String key) {
            return delegate.get(key);
        }

        @Override
        public Mono<List<String>> list(String prefix) {
            return delegate.list(prefix);
        }

        @Override
        public Mono<Boolean> delete(String key) {
            calls.add("delete " + key);
            return delegate.delete(key);
        }

        @Override
        public Mono<Boolean> deleteLazily(String key) {
            calls.add("deleteLazily " + key);
            return delegate.deleteLazily(key);
        }

        @Override
        public Mono<Boolean> exists(String key) {
            return delegate.exists(key);
        }
    }
}

package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/** Versioned reads and compare-and-swap replaces of {@link LocalObjectStore}: what a writer lease is built on. */
class ConditionalObjectStoreTest {
    @TempDir
    Path root;
    StorageScheduler scheduler;
    ObjectStore store;

    @BeforeEach
    void setUp() {
        scheduler = StorageScheduler.create();
        store = new CountingObjectStore(new LocalObjectStore(root, scheduler), new StorageCallCounter());
    }

    @AfterEach
    void tearDown() {
        scheduler.close();
    }

    private static byte[] text(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aReplaceLandsOnlyOnTheVersionItRead() {
        assertThat(store.getVersioned("lease").block()).isEmpty();
        assertThat(store.replaceIf("lease", "anything", text("x")).block()).as("absent key").isFalse();
        assertThat(store.putIfAbsent("lease", text("one")).block()).isTrue();

        ObjectStore.Versioned first = store.getVersioned("lease").block().orElseThrow();
        assertThat(first.bytes()).isEqualTo(text("one"));
        assertThat(store.replaceIf("lease", first.version(), text("two")).block()).isTrue();
        assertThat(store.replaceIf("lease", first.version(), text("three")).block()).as("stale version").isFalse();
        ObjectStore.Versioned second = store.getVersioned("lease").block().orElseThrow();
        assertThat(second.bytes()).isEqualTo(text("two"));
        assertThat(second.version()).isNotEqualTo(first.version());
        // The lock file of the replace is never listed as a key.
        assertThat(store.list("").block()).containsExactly("lease");
    }

    @Test
    void ofManyReplacesRacingOnOneVersionExactlyOneLands() {
        assertThat(store.putIfAbsent("lease", text("start")).block()).isTrue();
        String version = store.getVersioned("lease").block().orElseThrow().version();
        List<Boolean> outcomes = Flux.fromStream(IntStream.range(0, 16).boxed())
                .flatMap(i -> store.replaceIf("lease", version, text("taker " + i)), 16)
                .collectList().block();
        assertThat(outcomes).filteredOn(won -> won).hasSize(1);
        Optional<byte[]> now = store.get("lease").block();
        assertThat(new String(now.orElseThrow(), StandardCharsets.UTF_8)).startsWith("taker ");
    }
}

package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.rows;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.recovery.SidecarStore;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.ObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A write's confirmation runs beside its publish. When the manifest commit lands while the confirmation has not yet
 * reached its rename (its bytes only staged: a temp file, never listed), the confirmation can no longer matter and is
 * abandoned: the answer and the sidecar's removal do not wait for it, and its staged file is discarded, never renamed
 * over the sidecar. A confirmation that reached its rename first is waited for, as before, and the sidecar still
 * removed. Failpoints hold each side; nothing sleeps.
 */
class AbandonedConfirmationTest extends ConstrainedGraphTest {
    static final String QUERIES = """
            query note($t: String) { insert Note { text: $t } }
            """;
    /** Completes each time a staged put was discarded (the test waits for the abandoned confirmation's cleanup). */
    final Sinks.Many<String> discarded = Sinks.many().replay().all();
    final List<String> discards = new CopyOnWriteArrayList<>();

    @Override
    StorageServices newServices() {
        return EngineFixture.services().withObjectStores(store -> new DiscardSignalling(store, key -> {
            discards.add(key);
            discarded.tryEmitNext(key);
        }));
    }

    Mono<WriteOutcome> note(String text) {
        return graph.mutate("main", QUERIES, "note", Map.of("t", text), WriteOptions.DEFAULT);
    }

    /** Every file under {@code __recovery/} as the disk has it, temp files included. */
    List<String> recoveryFiles() throws Exception {
        Path recovery = dir.resolve("g").resolve(SidecarStore.DIRECTORY);
        if (!Files.isDirectory(recovery)) {
            return List.of();
        }
        try (var files = Files.list(recovery)) {
            return files.map(path -> path.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aConfirmationStillStagedWhenThePublishLandsIsAbandonedAndNeverRenamed() throws Exception {
        // The graph's first write: no earlier write's abandoned confirmation can still be on its way to this point.
        Failpoints.Parked staged = graph.failpoints().park(FailpointCatalog.SIDECAR_BEFORE_RENAME);
        CompletableFuture<WriteOutcome> write = note("a").toFuture();
        staged.reached().block();

        // The confirmation is held with its temp file written and fsynced; the publish is not held, so the write is
        // answered without it: published, the sidecar removed, no recovery, gates idle.
        WriteOutcome outcome = write.get(60, TimeUnit.SECONDS);
        assertThat(outcome.commit()).isPresent();
        assertThat(staged.isReached()).isTrue();
        assertThat(graph.gates().allIdle()).isTrue();
        assertThat(rows(graph, "node:Note").stream().map(row -> row.get("text")).toList()).containsExactly("a");
        assertThat(graph.sidecars().reload().collectList().block()).as("listed from the directory").isEmpty();
        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
        assertThat(recoveryFiles()).as("only the held confirmation's temp file, which no listing shows")
                .singleElement().satisfies(name -> assertThat(name).contains("#"));

        // Let the confirmation go on: it finds itself abandoned and discards its file instead of renaming it.
        staged.release();
        discarded.asFlux().next().block(Duration.ofSeconds(60));
        assertThat(recoveryFiles()).as("no sidecar re-created, no temp file left").isEmpty();
        assertThat(graph.recoveries().collectList().block()).isEmpty();
        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
    }

    @Test
    void aConfirmationThatReachedItsRenameFirstIsWaitedForAndTheSidecarStillRemoved() throws Exception {
        Failpoints.Parked published = graph.failpoints().park("mutation." + FailpointCatalog.AFTER_PUBLISH);
        Failpoints.Parked confirmed = graph.failpoints().park("mutation." + FailpointCatalog.AFTER_CONFIRM);
        CompletableFuture<WriteOutcome> write = note("a").toFuture();
        confirmed.reached().block();
        published.reached().block();

        // The confirmation was renamed before the publish could abandon it: the sidecar on disk is the confirmed one.
        Optional<Sidecar> onDisk = graph.sidecars().reload().collectList().block().stream().findFirst();
        assertThat(onDisk).hasValueSatisfying(sidecar -> assertThat(sidecar.protocolV3().effectPhase())
                .isEqualTo(Sidecar.EffectPhase.EffectsConfirmed));
        published.release();
        assertThat(write).as("the answer waits for a confirmation that won the race").isNotDone();

        confirmed.release();
        assertThat(write.get(60, TimeUnit.SECONDS).commit()).isPresent();
        assertThat(recoveryFiles()).as("the confirmed sidecar removed, no temp file left").isEmpty();
        assertThat(discards).as("nothing abandoned").isEmpty();
        assertThat(graph.recoveries().collectList().block()).isEmpty();
    }

    /** Delegates every call; signals {@code discarded} after a staged put was discarded. */
    record DiscardSignalling(ObjectStore delegate, Consumer<String> discarded) implements ObjectStore {
        @Override
        public Mono<StagedPut> stagePut(String key, byte[] bytes) {
            return delegate.stagePut(key, bytes).map(staged -> new StagedPut() {
                @Override
                public Mono<Void> publish() {
                    return staged.publish();
                }

                @Override
                public Mono<Void> discard() {
                    return staged.discard().doOnSuccess(done -> discarded.accept(key));
                }
            });
        }

        @Override
        public Mono<Void> put(String key, byte[] bytes) {
            return delegate.put(key, bytes);
        }

        @Override
        public Mono<Boolean> putIfAbsent(String key, byte[] bytes) {
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
            return delegate.delete(key);
        }

        @Override
        public Mono<Boolean> deleteLazily(String key) {
            return delegate.deleteLazily(key);
        }

        @Override
        public Mono<Boolean> exists(String key) {
            return delegate.exists(key);
        }

        @Override
        public Mono<Optional<Versioned>> getVersioned(String key) {
            return delegate.getVersioned(key);
        }

        @Override
        public Mono<Boolean> replaceIf(String key, String expectedVersion, byte[] bytes) {
            return delegate.replaceIf(key, expectedVersion, bytes);
        }

        @Override
        public String rootUri() {
            return delegate.rootUri();
        }
    }
}

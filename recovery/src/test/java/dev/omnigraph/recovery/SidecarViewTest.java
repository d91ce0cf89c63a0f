package dev.omnigraph.recovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.LocalObjectStore;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The shared in-memory sidecar directory: answers listings without storage calls once loaded, and never claims a
 * sidecar is gone while it may be on disk, whatever a write, a delete or a concurrent load did.
 */
class SidecarViewTest {
    @TempDir
    Path root;
    Store files;
    SidecarStore store;

    /** A real local store whose calls are recorded and can be made to fail or wait. */
    static final class Store implements ObjectStore {
        final ObjectStore delegate;
        final List<String> calls = new CopyOnWriteArrayList<>();
        volatile Function<Mono<Void>, Mono<Void>> onPut = Function.identity();
        volatile Function<Mono<Boolean>, Mono<Boolean>> onDelete = Function.identity();
        volatile Function<Mono<List<String>>, Mono<List<String>>> onList = Function.identity();

        Store(ObjectStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public Mono<Void> put(String key, byte[] bytes) {
            calls.add("put " + key);
            return onPut.apply(delegate.put(key, bytes));
        }

        @Override
        public Mono<Boolean> putIfAbsent(String key, byte[] bytes) {
            return delegate.putIfAbsent(key, bytes);
        }

        @Override
        public Mono<Optional<byte[]>> get(String key) {
            calls.add("get " + key);
            return delegate.get(key);
        }

        @Override
        public Mono<List<String>> list(String prefix) {
            calls.add("list " + prefix);
            return onList.apply(delegate.list(prefix));
        }

        @Override
        public Mono<Boolean> delete(String key) {
            calls.add("delete " + key);
            return onDelete.apply(delegate.delete(key));
        }

        @Override
        public Mono<Boolean> exists(String key) {
            return delegate.exists(key);
        }

        @Override
        public String rootUri() {
            return delegate.rootUri();
        }

        List<String> readsSince(int mark) {
            return new ArrayList<>(calls.subList(mark, calls.size())).stream()
                    .filter(call -> call.startsWith("get") || call.startsWith("list")).toList();
        }
    }

    static final StorageFault INJECTED = new StorageFault("injected", null);

    @BeforeEach
    void setUp() {
        files = new Store(new LocalObjectStore(root, StorageFixture.scheduler()));
        // Each test gets its own root, hence its own view.
        store = SidecarStore.shared(root.toString(), files, Failpoints.none());
    }

    List<String> listed() {
        return store.list().map(Sidecar::operationId).collectList().block();
    }

    @Test
    void listingsAfterTheLoadCostNoStorageCall() {
        assertThat(listed()).isEmpty(); // the first listing loads the directory
        String id = Ulid.next();
        int mark = files.calls.size();
        store.write(SidecarStoreTest.sample(id)).block();
        assertThat(listed()).containsExactly(id);
        store.delete(id).block();
        assertThat(listed()).isEmpty();
        assertThat(files.readsSince(mark)).isEmpty();
    }

    @Test
    void everyReadWriteStoreOfTheRootSharesTheView() {
        SidecarStore other = SidecarStore.shared(root.toString(), files, Failpoints.none());
        assertThat(listed()).isEmpty();
        String id = Ulid.next();
        other.write(SidecarStoreTest.sample(id)).block();
        assertThat(listed()).containsExactly(id);
        // A read-only store has no view and lists the directory.
        int mark = files.calls.size();
        assertThat(new SidecarStore(files).list().map(Sidecar::operationId).collectList().block()).containsExactly(id);
        assertThat(files.readsSince(mark)).isNotEmpty();
    }

    @Test
    void aWriteThatFailedAfterLandingIsStillListed() {
        assertThat(listed()).isEmpty();
        String id = Ulid.next();
        files.onPut = put -> put.then(Mono.error(INJECTED)); // the file landed, then the call failed
        assertThatThrownBy(() -> store.write(SidecarStoreTest.sample(id)).block()).isSameAs(INJECTED);
        files.onPut = Function.identity();
        int mark = files.calls.size();
        assertThat(listed()).containsExactly(id);
        assertThat(files.readsSince(mark)).containsExactly("get " + SidecarStore.key(id)); // re-read once, then known
        assertThat(listed()).containsExactly(id);
        assertThat(files.readsSince(mark)).hasSize(1);
    }

    @Test
    void aDeleteThatFailedLeavesTheSidecarListedUntilTheDiskSaysOtherwise() {
        assertThat(listed()).isEmpty();
        String kept = Ulid.next();
        String gone = Ulid.next();
        store.write(SidecarStoreTest.sample(kept)).block();
        store.write(SidecarStoreTest.sample(gone)).block();
        files.onDelete = delete -> Mono.error(INJECTED); // failed before deleting
        assertThatThrownBy(() -> store.delete(kept).block()).isSameAs(INJECTED);
        files.onDelete = delete -> delete.then(Mono.error(INJECTED)); // deleted, then the call failed
        assertThatThrownBy(() -> store.delete(gone).block()).isSameAs(INJECTED);
        files.onDelete = Function.identity();
        assertThat(listed()).containsExactly(kept);
        assertThat(Files.exists(root.resolve(SidecarStore.key(kept)))).isTrue();
    }

    @Test
    void aListingDuringAWriteReadsTheDiskAndTheWritesEndSettlesIt() {
        assertThat(listed()).isEmpty();
        String id = Ulid.next();
        Sinks.Empty<Void> release = Sinks.empty();
        files.onPut = put -> release.asMono().then(put); // the put waits until released
        Mono<Void> writing = store.write(SidecarStoreTest.sample(id)).cache();
        writing.subscribe();
        assertThat(listed()).isEmpty(); // in flight, not on disk yet: the listing read the disk
        release.tryEmitEmpty();
        writing.block();
        files.onPut = Function.identity();
        assertThat(listed()).containsExactly(id);
    }

    @Test
    void aLoadRacingAWriteKeepsTheWrite() {
        String id = Ulid.next();
        Sinks.Empty<Void> listed = Sinks.empty();
        Sinks.Empty<Void> taken = Sinks.empty();
        // The directory listing is taken (empty), then held back until the write has landed.
        files.onList = list -> list.doOnNext(names -> taken.tryEmitEmpty())
                .flatMap(names -> listed.asMono().thenReturn(names));
        Mono<List<String>> loading = store.reload().map(Sidecar::operationId).collectList().cache();
        loading.subscribe();
        taken.asMono().block(java.time.Duration.ofSeconds(60)); // the listing ran before the write starts
        store.write(SidecarStoreTest.sample(id)).block();
        listed.tryEmitEmpty();
        assertThat(loading.block()).isEmpty();
        files.onList = Function.identity();
        assertThat(listed()).containsExactly(id);
    }

    @Test
    void aSidecarGoneBehindTheViewsBackIsForgottenAtTheFirstReadOfIt() throws Exception {
        assertThat(listed()).isEmpty();
        String id = Ulid.next();
        store.write(SidecarStoreTest.sample(id)).block();
        Files.delete(root.resolve(SidecarStore.key(id))); // e.g. a graph re-created at the same path in this process
        assertThat(listed()).containsExactly(id);
        assertThat(store.read(id).block()).isEmpty(); // what recovery does before acting on a listed sidecar
        assertThat(listed()).isEmpty();
    }

    @Test
    void aReloadForgetsWhatTheDiskNoLongerHolds() throws Exception {
        assertThat(listed()).isEmpty();
        String id = Ulid.next();
        store.write(SidecarStoreTest.sample(id)).block();
        Files.delete(root.resolve(SidecarStore.key(id))); // e.g. an operator removed it before a new writer tenure
        assertThat(listed()).containsExactly(id);
        assertThat(store.reload().collectList().block()).isEmpty();
        assertThat(listed()).isEmpty();
    }
}

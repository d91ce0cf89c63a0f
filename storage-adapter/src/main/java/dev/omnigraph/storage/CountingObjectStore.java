package dev.omnigraph.storage;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;

/**
 * An {@link ObjectStore} that counts each call by class, then delegates. Counted at subscription and timed to the first terminal signal, so a Mono
 * that is built but never subscribed costs nothing and a retried one counts each attempt.
 */
public final class CountingObjectStore implements ObjectStore {
    private final ObjectStore delegate;
    private final StorageCallCounter counter;

    public CountingObjectStore(ObjectStore delegate, StorageCallCounter counter) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.counter = Objects.requireNonNull(counter, "counter");
    }

    private <T> Mono<T> counted(StorageCallCounter.Call call, Supplier<Mono<T>> work) {
        return counter.counted(call, work);
    }

    @Override
    public Mono<Void> put(String key, byte[] bytes) {
        return counted(StorageCallCounter.Call.OBJECT_PUT, () -> delegate.put(key, bytes));
    }

    @Override
    public Mono<Boolean> putIfAbsent(String key, byte[] bytes) {
        return counted(StorageCallCounter.Call.OBJECT_PUT_IF_ABSENT, () -> delegate.putIfAbsent(key, bytes));
    }

    @Override
    public Mono<Optional<byte[]>> get(String key) {
        return counted(StorageCallCounter.Call.OBJECT_GET, () -> delegate.get(key));
    }

    @Override
    public Mono<List<String>> list(String prefix) {
        return counted(StorageCallCounter.Call.OBJECT_LIST, () -> delegate.list(prefix));
    }

    @Override
    public Mono<List<StoredObject>> listObjects(String prefix) {
        return counted(StorageCallCounter.Call.OBJECT_LIST, () -> delegate.listObjects(prefix));
    }

    @Override
    public Mono<Boolean> delete(String key) {
        return counted(StorageCallCounter.Call.OBJECT_DELETE, () -> delegate.delete(key));
    }

    @Override
    public Mono<Boolean> deleteLazily(String key) {
        return counted(StorageCallCounter.Call.OBJECT_DELETE, () -> delegate.deleteLazily(key));
    }

    @Override
    public Mono<Boolean> exists(String key) {
        return counted(StorageCallCounter.Call.OBJECT_EXISTS, () -> delegate.exists(key));
    }

    @Override
    public Mono<Optional<Versioned>> getVersioned(String key) {
        return counted(StorageCallCounter.Call.OBJECT_GET, () -> delegate.getVersioned(key));
    }

    @Override
    public Mono<Boolean> replaceIf(String key, String expectedVersion, byte[] bytes) {
        return counted(StorageCallCounter.Call.OBJECT_REPLACE_IF, () -> delegate.replaceIf(key, expectedVersion, bytes));
    }

    @Override
    public String rootUri() {
        return delegate.rootUri();
    }
}

package dev.omnigraph.storage.lease;

import dev.omnigraph.storage.RootLock;
import dev.omnigraph.storage.StorageScheduler;
import reactor.core.publisher.Mono;

/**
 * The tenure of a local root: the OS lock excludes every other writer process for as long as this one lives, and
 * goes with it, so there is never a stale holder to fence. Its epoch is the one the manifest already carries
 * (adopted at open): local publishes neither raise nor trip the epoch check.
 */
final class LocalTenure implements WriterTenure {
    private final RootLock lock;
    private final StorageScheduler scheduler;
    private volatile long epoch;

    LocalTenure(RootLock lock, StorageScheduler scheduler) {
        this.lock = lock;
        this.scheduler = scheduler;
    }

    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    public void requireHeld() {
        // The OS lock cannot be lost while the process lives.
    }

    @Override
    public boolean fencesManifest() {
        return false;
    }

    @Override
    public void adopt(long manifestEpoch) {
        epoch = Math.max(epoch, manifestEpoch);
    }

    @Override
    public Mono<Void> release() {
        return scheduler.run(lock::close);
    }

    @Override
    public void close() {
        lock.close(); // file I/O, as before: callers close from threads that may block
    }
}

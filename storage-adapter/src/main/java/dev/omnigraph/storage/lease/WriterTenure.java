package dev.omnigraph.storage.lease;

import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.RootLock;
import dev.omnigraph.storage.StorageScheduler;
import dev.omnigraph.storage.WriterFence;
import java.nio.file.Path;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * One read-write handle's share of its process's writer tenure on a root: the OS file lock of a local root
 * ({@link RootLock}) or the lease object on any other ({@link WriterLease}). Handles of one process share one
 * tenure; the last to close gives it back.
 */
public sealed interface WriterTenure extends WriterFence, AutoCloseable permits LocalTenure, WriterLease.Share {

    /**
     * Takes the tenure: the OS lock when {@code localRoot} is given (unless {@code settings} force the lease
     * object), else the lease object in {@code files}. Refused with a {@code Conflict} naming the holder.
     */
    static Mono<WriterTenure> acquire(ObjectStore files, Optional<Path> localRoot, LeaseSettings settings,
                                      StorageScheduler scheduler) {
        if (localRoot.isPresent() && !settings.objectLease()) {
            return scheduler.call(() -> new LocalTenure(RootLock.acquire(localRoot.get()), scheduler));
        }
        return WriterLease.share(files, settings);
    }

    /**
     * Whether a holder that lost this tenure may still be running, so the new holder must fence the manifest
     * before it writes (a lease: paused or partitioned processes). An OS lock dies with its process.
     */
    boolean fencesManifest();

    /**
     * Called once the manifest's epoch is known. A lease refuses an epoch above its own (its object was reset);
     * an OS lock takes the manifest's epoch as its own, so local publishes keep what the manifest carries.
     */
    void adopt(long manifestEpoch);

    /** Gives this handle's share back without blocking; the process's last share releases the lock or lease. */
    Mono<Void> release();

    /**
     * Starts {@link #release()} and returns at once (library code never blocks); a caller that must know the
     * tenure is given back (before another process opens the root) waits on {@link #release()} instead.
     */
    @Override
    default void close() {
        release().subscribe(done -> { }, failure -> { });
    }
}

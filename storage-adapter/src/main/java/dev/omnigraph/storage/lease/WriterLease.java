package dev.omnigraph.storage.lease;

import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.RootLock;
import dev.omnigraph.storage.error.LeaseLost;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The writer lease of a root held in one object ({@value #KEY}) of its {@link ObjectStore}: owner, epoch, expiry.
 * Taken by create-if-absent, or by a conditional replace of a released or expired lease with the next epoch (two
 * takers race on the version they read; exactly one wins). Renewed on a Reactor timer by a conditional replace
 * that also checks the lease is still this process's; given back at close by marking it released (the object
 * stays, so epochs only grow). Expiry is judged by each reader's clock against the recorded expiry, so clocks must
 * agree to well within a lease duration; the publish fence, not the clock, is what keeps a late holder out.
 */
public final class WriterLease {
    public static final String KEY = "__writer.lease";
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(WriterLease.class);
    /** Leases this process holds, per root and owner; guarded by itself. */
    private static final Map<String, Entry> HELD = new HashMap<>();

    private final ObjectStore files;
    private final LeaseSettings settings;
    private final long epoch;
    private volatile long expiresAtMillis;
    /** Why this process knows the lease is gone; null while it holds. */
    private volatile String lost;
    private volatile Disposable renewal;

    private WriterLease(ObjectStore files, LeaseSettings settings, long epoch, long expiresAtMillis) {
        this.files = files;
        this.settings = settings;
        this.epoch = epoch;
        this.expiresAtMillis = expiresAtMillis;
    }

    private static final class Entry {
        final Mono<WriterLease> lease;
        volatile WriterLease taken;
        int handles;

        Entry(Mono<WriterLease> take) {
            this.lease = take.doOnNext(held -> taken = held).cache();
        }

        boolean lost() {
            WriterLease held = taken;
            return held != null && held.lost != null;
        }
    }

    /**
     * The lease of {@code files}' root as stored now (one read of the lease object), or empty when no read-write
     * open ever took it (a local root under OS locks has none). Says who holds it and where it takes writes.
     */
    public static Mono<java.util.Optional<LeaseHolder>> read(ObjectStore files) {
        return files.getVersioned(KEY).map(found -> found.map(stored -> LeaseRecord.parse(KEY, stored.bytes()).view()));
    }

    /** This process's share of the lease on {@code files}' root: joins a held one, else takes it. */
    static Mono<WriterTenure> share(ObjectStore files, LeaseSettings settings) {
        return Mono.defer(() -> join(files, settings));
    }

    private static Mono<WriterTenure> join(ObjectStore files, LeaseSettings settings) {
        String key = files.rootUri() + "\n" + settings.owner();
        Entry entry;
        synchronized (HELD) {
            entry = HELD.get(key);
            if (entry == null || entry.lost()) {
                entry = new Entry(take(files, settings));
                HELD.put(key, entry);
            }
            entry.handles++;
        }
        Entry joined = entry;
        return joined.lease.<WriterTenure>map(lease -> new Share(lease, joined, key))
                .onErrorResume(failure -> {
                    leave(key, joined);
                    return Mono.error(failure);
                })
                // An open abandoned while it waited: if it was the last, the lease is given back once taken.
                .doOnCancel(() -> {
                    if (leave(key, joined)) {
                        joined.lease.flatMap(WriterLease::giveBack).subscribe(done -> { }, failure -> { });
                    }
                });
    }

    /** Leaves {@code entry}; true when this was its last handle (the lease is then given back). */
    private static boolean leave(String key, Entry entry) {
        synchronized (HELD) {
            entry.handles--;
            if (entry.handles > 0) {
                return false;
            }
            HELD.remove(key, entry);
            return true;
        }
    }

    /** Takes the lease for this owner, waiting up to {@code settings.waitFor()} while another holds it. */
    static Mono<WriterLease> take(ObjectStore files, LeaseSettings settings) {
        return Mono.defer(() -> attempt(files, settings, settings.clock().millis() + settings.waitFor().toMillis()));
    }

    private static Mono<WriterLease> attempt(ObjectStore files, LeaseSettings settings, long deadline) {
        return files.getVersioned(KEY).flatMap(found -> {
            long now = settings.clock().millis();
            long expiry = now + settings.duration().toMillis();
            if (found.isEmpty()) {
                return files.putIfAbsent(KEY, new LeaseRecord(settings.owner(), 1, expiry, false, settings.advertise().orElse(null)).bytes())
                        .flatMap(created -> created ? Mono.just(start(files, settings, 1, expiry))
                                : attempt(files, settings, deadline));
            }
            LeaseRecord current = LeaseRecord.parse(KEY, found.get().bytes());
            // A lease naming this very process that no handle here shares any more is one being given back (a
            // close that did not wait): taking it over with the next epoch is safe, and a reopen need not wait.
            if (current.free(now) || current.owner().equals(settings.owner())) {
                long next = current.epoch() + 1;
                return files.replaceIf(KEY, found.get().version(),
                                new LeaseRecord(settings.owner(), next, expiry, false,
                                        settings.advertise().orElse(null)).bytes())
                        .flatMap(won -> won ? Mono.just(start(files, settings, next, expiry))
                                : attempt(files, settings, deadline));
            }
            if (now >= deadline) {
                return Mono.error(RootLock.refusal(current.owner(), ", writer epoch " + current.epoch()
                        + ", lease valid until " + Instant.ofEpochMilli(current.expiresAtMillis())));
            }
            Duration pause = Duration.ofMillis(Math.min(settings.pollEvery().toMillis(), deadline - now));
            return Mono.delay(pause).then(Mono.defer(() -> attempt(files, settings, deadline)));
        });
    }

    private static WriterLease start(ObjectStore files, LeaseSettings settings, long epoch, long expiry) {
        WriterLease lease = new WriterLease(files, settings, epoch, expiry);
        lease.renewal = Flux.interval(settings.renewEvery(), settings.renewEvery(), Schedulers.parallel())
                .onBackpressureDrop()
                .concatMap(tick -> lease.renewOnce().onErrorResume(failure -> {
                    LOG.warn("renewing the writer lease of {} failed; retrying: {}", files.rootUri(), failure.toString());
                    return Mono.empty();
                }), 1)
                .subscribe();
        LOG.info("took the writer lease of {} with epoch {}", files.rootUri(), epoch);
        return lease;
    }

    long epoch() {
        return epoch;
    }

    /** Throws {@link LeaseLost} when this process knows the lease is gone or it expired unrenewed. */
    void requireHeld() {
        String why = lost;
        if (why != null) {
            throw new LeaseLost(epoch, "this process no longer holds the writer lease of " + files.rootUri() + ": " + why);
        }
        long expiry = expiresAtMillis;
        if (settings.clock().millis() >= expiry) {
            throw new LeaseLost(epoch, "the writer lease of " + files.rootUri() + " expired unrenewed at "
                    + Instant.ofEpochMilli(expiry) + " (storage unreachable, or this process was paused)");
        }
    }

    /** One renewal: extends the lease if it is still this process's, else records that it was lost. */
    Mono<Void> renewOnce() {
        return files.getVersioned(KEY).flatMap(found -> {
            if (lost != null) {
                return Mono.empty();
            }
            if (found.isEmpty()) {
                return lose("its lease object " + KEY + " is gone");
            }
            LeaseRecord current = LeaseRecord.parse(KEY, found.get().bytes());
            if (current.epoch() != epoch || !current.owner().equals(settings.owner())) {
                return lose("it was taken over by " + current.describe());
            }
            if (current.released()) {
                return lose("it was released");
            }
            long expiry = settings.clock().millis() + settings.duration().toMillis();
            return files.replaceIf(KEY, found.get().version(), current.renewedUntil(expiry).bytes())
                    .doOnNext(renewed -> {
                        if (renewed) {
                            expiresAtMillis = Math.max(expiresAtMillis, expiry);
                        }
                    })
                    .then();
        });
    }

    private Mono<Void> lose(String why) {
        lost = why;
        stopRenewing();
        LOG.warn("lost the writer lease of {} (epoch {}): {}", files.rootUri(), epoch, why);
        return Mono.empty();
    }

    private void stopRenewing() {
        Disposable running = renewal;
        if (running != null) {
            running.dispose();
        }
    }

    /** Stops renewing and marks the lease released (if it is still this process's), so a waiter takes it at once. */
    Mono<Void> giveBack() {
        return Mono.defer(() -> {
            stopRenewing();
            if (lost != null) {
                return Mono.<Void>empty();
            }
            lost = "this process released it";
            return files.getVersioned(KEY).flatMap(found -> {
                if (found.isEmpty()) {
                    return Mono.<Void>empty();
                }
                LeaseRecord current = LeaseRecord.parse(KEY, found.get().bytes());
                if (current.epoch() != epoch || !current.owner().equals(settings.owner())) {
                    return Mono.<Void>empty();
                }
                return files.replaceIf(KEY, found.get().version(),
                        current.releasedAt(settings.clock().millis()).bytes()).then();
            });
        });
    }

    /** One handle's share of a process's lease. */
    static final class Share implements WriterTenure {
        private final WriterLease lease;
        private final Entry entry;
        private final String key;
        private final AtomicBoolean released = new AtomicBoolean();

        private Share(WriterLease lease, Entry entry, String key) {
            this.lease = lease;
            this.entry = entry;
            this.key = key;
        }

        @Override
        public long epoch() {
            return lease.epoch();
        }

        @Override
        public void requireHeld() {
            lease.requireHeld();
        }

        @Override
        public boolean fencesManifest() {
            return true;
        }

        @Override
        public void adopt(long manifestEpoch) {
            if (manifestEpoch > lease.epoch()) {
                throw new LeaseLost(lease.epoch(), "the manifest of " + lease.files.rootUri() + " carries writer epoch "
                        + manifestEpoch + ": a newer holder has fenced it");
            }
        }

        @Override
        public Mono<Void> release() {
            return Mono.defer(() -> released.compareAndSet(false, true) && leave(key, entry) ? lease.giveBack()
                    : Mono.empty());
        }

        /** The lease behind this share (tests renew it by hand). */
        WriterLease lease() {
            return lease;
        }
    }
}

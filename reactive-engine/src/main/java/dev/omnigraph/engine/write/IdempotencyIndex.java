package dev.omnigraph.engine.write;

import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.error.IdempotencyKeyReused;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestStore;
import dev.omnigraph.storage.manifest.RecordedCommit;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The idempotency keys of one graph root, shared by every handle on it in this process. The records themselves
 * live on the graph_commit rows (durable, published atomically with their commit); this is their in-memory index:
 * built once from the manifest of every branch, then kept current by this process's own publishes and by an
 * incremental re-read whenever a write under its branch gate finds the manifest at a version the index has not
 * seen (a recovery roll-forward, a compaction). A root has one read-write process, so nothing else publishes.
 *
 * <p>It also tracks keys in flight: of concurrent duplicates in this process exactly one leads; the others wait
 * for its outcome, and run again themselves if it failed (a failed write records nothing).
 */
public final class IdempotencyIndex {
    private static final ConcurrentHashMap<String, IdempotencyIndex> BY_ROOT = new ConcurrentHashMap<>();

    /** A recorded key: the request hash it was used with and the outcome it produced. */
    private record Entry(String requestHash, GraphCommit commit, long affectedNodes, long affectedEdges,
                         java.util.SortedMap<String, Long> entitiesByTable) {
        WriteOutcome outcome() {
            return new WriteOutcome(Optional.of(commit), affectedNodes, affectedEdges, entitiesByTable, true);
        }
    }

    private record InFlight(String requestHash, Sinks.One<WriteOutcome> result) {
    }

    /** What a write with a key does next. */
    public sealed interface Claim {
        /** The key is recorded with this request: answer with the original outcome, write nothing. */
        record Replay(WriteOutcome outcome) implements Claim {
        }

        /** A duplicate is running in this process: its outcome (or {@link LeaderFailed}) is this write's. */
        record Wait(Mono<WriteOutcome> leader) implements Claim {
        }

        /** This write runs; it must end its ticket exactly once. */
        record Lead(Ticket ticket) implements Claim {
        }
    }

    /** The leader's write failed, so it recorded nothing and a waiting duplicate runs itself. */
    public static final class LeaderFailed extends RuntimeException {
        LeaderFailed() {
            super("the first write with this idempotency key failed", null, false, false);
        }
    }

    private final LinkedHashMap<String, Entry> recorded = new LinkedHashMap<>();
    private final Map<String, InFlight> inFlight = new HashMap<>();
    private final Map<String, Long> syncedVersion = new HashMap<>();
    private final Map<String, Sinks.Empty<Void>> claimWatchers = new HashMap<>();
    private final AtomicReference<Mono<Void>> built = new AtomicReference<>();

    private IdempotencyIndex() {
    }

    /** The index of {@code canonicalRoot}; every handle on the same root gets the same instance. */
    public static IdempotencyIndex forRoot(String canonicalRoot) {
        return BY_ROOT.computeIfAbsent(canonicalRoot, root -> new IdempotencyIndex());
    }

    /**
     * Drops the in-memory index of {@code canonicalRoot}; the next keyed write rebuilds it from the manifest, as a
     * new process would. Keys in flight keep their leaders (they hold their own tickets).
     */
    public static void forgetRoot(String canonicalRoot) {
        BY_ROOT.remove(canonicalRoot);
    }

    /** Completes once the index holds every branch's records (read once per process; a failed read is retried). */
    public Mono<Void> built(ManifestStore manifest) {
        Mono<Void> existing = built.get();
        if (existing != null) {
            return existing;
        }
        AtomicReference<Mono<Void>> self = new AtomicReference<>();
        Mono<Void> build = manifest.branches()
                .flatMapMany(Flux::fromIterable)
                .map(BranchIdentity::name)
                .concatMap(branch -> manifest.latest(branch).flatMap(snapshot -> sync(manifest, branch, snapshot)))
                .then()
                .doOnError(failure -> built.compareAndSet(self.get(), null))
                .cache();
        self.set(build);
        return built.compareAndSet(null, build) ? build : built.get();
    }

    /** Reads the records {@code snapshot} of {@code branch} holds past the version this index last saw there. */
    public Mono<Void> sync(ManifestStore manifest, String branch, TableSnapshot snapshot) {
        long after;
        synchronized (this) {
            Long seen = syncedVersion.get(branch);
            if (seen != null && seen >= snapshot.version()) {
                return Mono.empty();
            }
            after = seen == null ? 0 : seen;
        }
        return manifest.recordedCommits(snapshot, after).collectList().doOnNext(found -> {
            synchronized (this) {
                found.stream().sorted(Comparator.comparingLong(r -> r.commit().createdAtMicros()))
                        .forEach(this::remember);
                syncedVersion.merge(branch, snapshot.version(), Math::max);
            }
        }).then();
    }

    /** Decides, atomically with every other claim on this root, whether a keyed write replays, waits or leads. */
    public synchronized Claim claim(IdempotentRequest request, IdempotencySettings settings) {
        Optional<WriteOutcome> replay = recordedOutcome(request, settings);
        if (replay.isPresent()) {
            return new Claim.Replay(replay.get());
        }
        InFlight running = inFlight.get(request.key());
        if (running != null) {
            if (!running.requestHash().equals(request.requestHash())) {
                throw new IdempotencyKeyReused(request.key(), Optional.empty());
            }
            return new Claim.Wait(running.result().asMono());
        }
        InFlight lead = new InFlight(request.requestHash(), Sinks.one());
        inFlight.put(request.key(), lead);
        Sinks.Empty<Void> watcher = claimWatchers.remove(request.key());
        if (watcher != null) {
            watcher.tryEmitEmpty();
        }
        return new Claim.Lead(new Ticket(request.key(), lead));
    }

    /**
     * The outcome recorded for this key within the window, if any; {@link IdempotencyKeyReused} when it was
     * recorded with another request. Checked before the first effect, under the branch gate, after {@link #sync}.
     */
    public synchronized Optional<WriteOutcome> recordedOutcome(IdempotentRequest request, IdempotencySettings settings) {
        Entry entry = recorded.get(request.key());
        if (entry == null || !settings.remembers(entry.commit().createdAtMicros())) {
            return Optional.empty();
        }
        if (!entry.requestHash().equals(request.requestHash())) {
            throw new IdempotencyKeyReused(request.key(), Optional.of(entry.commit().id()));
        }
        return Optional.of(entry.outcome());
    }

    /** Completes when a write with {@code key} is running or recorded: lets tests and tools wait without polling. */
    public synchronized Mono<Void> whenClaimed(String key) {
        if (inFlight.containsKey(key) || recorded.containsKey(key)) {
            return Mono.empty();
        }
        return claimWatchers.computeIfAbsent(key, k -> Sinks.empty()).asMono();
    }

    /** Forgets keys older than the window (entries are kept oldest first). */
    private void prune(IdempotencySettings settings) {
        Iterator<Entry> oldest = recorded.values().iterator();
        while (oldest.hasNext()) {
            if (settings.remembers(oldest.next().commit().createdAtMicros())) {
                return;
            }
            oldest.remove();
        }
    }

    private void remember(RecordedCommit found) {
        Entry existing = recorded.get(found.record().key());
        if (existing != null && existing.commit().createdAtMicros() > found.commit().createdAtMicros()) {
            return;
        }
        recorded.remove(found.record().key());
        recorded.put(found.record().key(), new Entry(found.record().requestHash(), found.commit(),
                found.record().affectedNodes(), found.record().affectedEdges(), found.record().entitiesByTable()));
    }

    /** The lead of one key: ended once, by the write's own detached run, whatever its subscriber did. */
    public final class Ticket {
        private final String key;
        private final InFlight lead;

        private Ticket(String key, InFlight lead) {
            this.key = key;
            this.lead = lead;
        }

        /** The write ended with {@code outcome}: a published commit is remembered before any waiter sees it. */
        public void finish(WriteOutcome outcome, IdempotencySettings settings) {
            synchronized (IdempotencyIndex.this) {
                inFlight.remove(key, lead);
                outcome.commit().ifPresent(commit -> {
                    remember(new RecordedCommit(commit, new dev.omnigraph.storage.manifest.IdempotencyRecord(key,
                            lead.requestHash(), outcome.affectedNodes(), outcome.affectedEdges(),
                            outcome.entitiesByTable())));
                    String branch = commit.branchName();
                    if (syncedVersion.getOrDefault(branch, -1L) == commit.manifestVersion() - 1) {
                        syncedVersion.put(branch, commit.manifestVersion());
                    }
                });
                prune(settings);
            }
            lead.result().tryEmitValue(outcome);
        }

        /** The write failed: nothing is recorded and waiting duplicates run themselves. */
        public void fail() {
            synchronized (IdempotencyIndex.this) {
                inFlight.remove(key, lead);
            }
            lead.result().tryEmitError(new LeaderFailed());
        }
    }

    /** Entries currently remembered (for tests). */
    synchronized List<String> keys() {
        return List.copyOf(recorded.keySet());
    }
}

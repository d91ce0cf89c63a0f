package dev.omnigraph.engine.gate;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The process-local gates of one graph root, shared by every handle opened on it (keyed by canonical root).
 * Every writer acquires in one total order — schema gate, then branch gate, then table gates sorted by key — so
 * no two writers can deadlock. Data writers hold the schema gate shared; schema apply, full recovery and
 * graph-wide maintenance hold it exclusively.
 */
public final class Gates {
    private static final ConcurrentHashMap<String, Gates> BY_ROOT = new ConcurrentHashMap<>();

    private final String root;
    private final AsyncRwGate schema;
    private final ConcurrentHashMap<String, AsyncRwGate> branches = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, AsyncRwGate> tables = new ConcurrentHashMap<>();

    private Gates(String root) {
        this.root = root;
        this.schema = new AsyncRwGate("schema@" + root);
    }

    /** The gates of {@code canonicalRoot}; every handle on the same root gets the same instance. */
    public static Gates forRoot(String canonicalRoot) {
        return BY_ROOT.computeIfAbsent(canonicalRoot, Gates::new);
    }

    /** Schema (shared) → branch → sorted tables, as one permit released in reverse order. */
    public Mono<Permit> forWrite(String branch, SortedSet<String> tableKeys) {
        List<Supplier<Mono<Permit>>> steps = new ArrayList<>();
        steps.add(schema::shared);
        steps.add(() -> branchGate(branch).exclusive());
        steps.addAll(tableSteps(branch, tableKeys));
        return inOrder(steps);
    }

    /**
     * Schema (shared) → branch: a data writer's place in its branch's FIFO queue. It is held while the writer
     * plans, so the head it plans against cannot move in this process before it publishes.
     */
    public Mono<Permit> forBranch(String branch) {
        return forBranches(new java.util.TreeSet<>(List.of(branch)));
    }

    /**
     * Schema (shared) → each branch in name order: a merge holds its target's and its source's gate. Every holder
     * of more than one branch gate takes them sorted, so two opposite merges queue one behind the other.
     */
    public Mono<Permit> forBranches(SortedSet<String> branches) {
        List<Supplier<Mono<Permit>>> steps = new ArrayList<>();
        steps.add(schema::shared);
        for (String branch : branches) {
            steps.add(() -> branchGate(branch).exclusive());
        }
        return inOrder(steps);
    }

    /**
     * The sorted table gates of a writer that already holds {@code branch}'s gate (from {@link #forBranch}):
     * taken after it, so the total order schema → branch → tables still holds.
     */
    public Mono<Permit> forTables(String branch, SortedSet<String> tableKeys) {
        return inOrder(tableSteps(branch, tableKeys));
    }

    private List<Supplier<Mono<Permit>>> tableSteps(String branch, SortedSet<String> tableKeys) {
        List<Supplier<Mono<Permit>>> steps = new ArrayList<>();
        for (String tableKey : tableKeys) {
            steps.add(() -> tableGate(tableKey, branch).exclusive());
        }
        return steps;
    }

    /** The schema gate alone, exclusively: waits out every in-process writer of this root. */
    public Mono<Permit> exclusiveSchema() {
        return schema.exclusive();
    }

    /** Brief shared hold used to bind a snapshot to a catalog. */
    public Mono<Permit> sharedSchema() {
        return schema.shared();
    }

    private AsyncRwGate branchGate(String branch) {
        return branches.computeIfAbsent(branch, name -> new AsyncRwGate("branch:" + name + "@" + root));
    }

    private AsyncRwGate tableGate(String tableKey, String branch) {
        return tables.computeIfAbsent(tableKey + "@" + branch, key -> new AsyncRwGate("table:" + key + "@" + root));
    }

    /** True when no gate of this root is held or awaited (used by tests to prove nothing leaked). */
    public boolean allIdle() {
        return schema.isIdle() && branches.values().stream().allMatch(AsyncRwGate::isIdle)
                && tables.values().stream().allMatch(AsyncRwGate::isIdle);
    }

    @Override
    public String toString() {
        return schema + " " + branches.values() + " " + tables.values();
    }

    private static Mono<Permit> inOrder(List<Supplier<Mono<Permit>>> steps) {
        return Mono.defer(() -> {
            List<Permit> held = new ArrayList<>();
            AtomicBoolean released = new AtomicBoolean();
            Permit all = () -> {
                if (released.compareAndSet(false, true)) {
                    List<Permit> reverse;
                    synchronized (held) {
                        reverse = new ArrayList<>(held);
                    }
                    for (int i = reverse.size() - 1; i >= 0; i--) {
                        reverse.get(i).release();
                    }
                }
            };
            return Flux.fromIterable(steps)
                    .concatMap(step -> step.get().doOnNext(permit -> {
                        synchronized (held) {
                            held.add(permit);
                        }
                        if (released.get()) {
                            permit.release(); // the whole acquisition was abandoned meanwhile
                        }
                    }), 1)
                    .then(Mono.just(all))
                    .doOnCancel(all::release)
                    .doOnError(error -> all.release());
        });
    }
}

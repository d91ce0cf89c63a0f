package dev.omnigraph.recovery;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.error.OmnigraphException;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.error.StorageFault;
import java.io.IOException;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Reads and writes sidecars under {@code __recovery/}. Writes are atomic puts (temp + fsync + rename), so a
 * sidecar is either absent or whole. A sidecar that cannot be parsed, or carries a newer schema version, is
 * refused loudly and left on disk: a write must never proceed past an intent it cannot understand.
 *
 * <p>A read-write handle's store ({@link #shared}) keeps the root's {@link SidecarView}: {@link #list()} answers
 * from memory once the directory was loaded, so the write path's recovery checks cost no storage call. A
 * read-only handle holds no writer lock (another process may be writing), so its store lists the directory every
 * time.
 */
public final class SidecarStore {
    public static final String DIRECTORY = "__recovery/";
    static final ObjectMapper JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

    private final ObjectStore files;
    private final Failpoints failpoints;
    /** Null: no view, every listing reads the directory. */
    private final SidecarView view;

    public SidecarStore(ObjectStore files) {
        this(files, Failpoints.none());
    }

    /** {@code failpoints} may inject faults before each write, delete and list ({@code recovery.sidecar_*}). */
    public SidecarStore(ObjectStore files, Failpoints failpoints) {
        this(files, failpoints, null);
    }

    private SidecarStore(ObjectStore files, Failpoints failpoints, SidecarView view) {
        this.files = files;
        this.failpoints = failpoints;
        this.view = view;
    }

    /**
     * The store of a read-write handle on {@code canonicalRoot}: it shares the root's in-memory view with every
     * other read-write handle of this process. Only valid while this process holds the root's writer lock.
     */
    public static SidecarStore shared(String canonicalRoot, ObjectStore files, Failpoints failpoints) {
        return new SidecarStore(files, failpoints, SidecarView.forRoot(canonicalRoot));
    }

    /** The rule that resolves the table paths of this store's sidecars: against the root this store reads them from. */
    public TablePaths paths() {
        return new TablePaths(files.rootUri());
    }

    public static String key(String operationId) {
        return DIRECTORY + operationId + ".json";
    }

    /** Durably writes (or rewrites) the sidecar; on failure the previous content (or absence) is intact. */
    public Mono<Void> write(Sidecar sidecar) {
        return Mono.fromCallable(() -> JSON.writeValueAsBytes(sidecar))
                .flatMap(bytes -> tracked(sidecar.operationId(), failpoints.hit(FailpointCatalog.SIDECAR_WRITE)
                        .then(files.put(key(sidecar.operationId()), bytes)).thenReturn(true),
                        (id, stamp) -> view.written(id, stamp, sidecar)))
                .onErrorMap(error -> !(error instanceof OmnigraphException),
                        error -> new StorageFault("writing sidecar " + sidecar.operationId() + " failed: " + error, error))
                .then();
    }

    /**
     * The sidecars a read-write handle's view knows of (for a gauge: no storage call); 0 without a view (a
     * read-only handle lists the directory instead, which a gauge must not do).
     */
    public int knownPending() {
        return view == null ? 0 : view.size();
    }

    /** Reads one sidecar from storage; with a view, what it finds also settles the view's entry (see {@link SidecarView#observed}). */
    public Mono<Optional<Sidecar>> read(String operationId) {
        Mono<Optional<Sidecar>> fromDisk = files.get(key(operationId)).map(bytes -> bytes.map(content -> parse(operationId, content)));
        if (view == null) {
            return fromDisk;
        }
        return Mono.defer(() -> {
            long stamp = view.stampOf(operationId);
            return fromDisk.doOnNext(found -> view.observed(operationId, stamp, found));
        });
    }

    /**
     * Every pending sidecar, in operation-id (= chronological) order. A listing that fails is an error, never
     * an empty answer: "no sidecars" would let a write or an open skip recovery. With a loaded view this reads
     * storage only for sidecars whose last write or delete did not settle.
     */
    public Flux<Sidecar> list() {
        if (view == null) {
            return fromDirectory();
        }
        return Mono.fromSupplier(view::snapshot)
                .flatMapMany(snapshot -> snapshot.loaded() ? fromView(snapshot) : reload());
    }

    /**
     * Lists the directory (loudly on failure) and, for a shared store, makes that listing the view: every
     * read-write open's sweep starts here, so the view begins each writer-lock tenure from the disk's truth.
     */
    public Flux<Sidecar> reload() {
        if (view == null) {
            return fromDirectory();
        }
        return Mono.fromSupplier(view::loadStarted)
                .flatMapMany(startedAt -> fromDirectory().collectMap(Sidecar::operationId, sidecar -> sidecar)
                        .doOnNext(listed -> view.install(startedAt, listed))
                        .flatMapMany(listed -> Flux.fromIterable(new java.util.TreeMap<>(listed).values())));
    }

    public Mono<Boolean> delete(String operationId) {
        return remove(operationId, files.delete(key(operationId)));
    }

    /**
     * Removes the sidecar of a write whose commit is published, without waiting for the removal to be durable
     * ({@link ObjectStore#deleteLazily}). If a power loss brings it back, recovery finds its commit visible and
     * only finalizes it (audit, delete) — and any later sidecar write to the directory (every later write arms
     * one) makes this removal durable with its own directory sync anyway.
     */
    public Mono<Boolean> deletePublished(String operationId) {
        return remove(operationId, files.deleteLazily(key(operationId)));
    }

    private Mono<Boolean> remove(String operationId, Mono<Boolean> unlink) {
        return tracked(operationId, failpoints.hit(FailpointCatalog.SIDECAR_DELETE).then(unlink),
                view == null ? null : view::deleted);
    }

    /** Runs a write or delete; with a view, marks it in flight first and settles it by how it ended. */
    private <T> Mono<T> tracked(String operationId, Mono<T> io, java.util.function.ObjLongConsumer<String> onSuccess) {
        if (view == null) {
            return io;
        }
        return Mono.defer(() -> {
            long stamp = view.begin(operationId);
            return io.doOnSuccess(done -> onSuccess.accept(operationId, stamp))
                    .doOnError(failed -> view.unsettled(operationId, stamp))
                    .doOnCancel(() -> view.unsettled(operationId, stamp));
        });
    }

    /** Known entries from memory; in-flight or uncertain ones from their file (which settles an uncertain one). */
    private Flux<Sidecar> fromView(SidecarView.Snapshot snapshot) {
        return Flux.fromIterable(snapshot.entries()).concatMap(entry -> entry.getValue() instanceof SidecarView.Entry.Known known
                ? Mono.just(known.sidecar())
                : read(entry.getKey()).flatMap(Mono::justOrEmpty));
    }

    private Flux<Sidecar> fromDirectory() {
        return failpoints.hit(FailpointCatalog.SIDECAR_LIST)
                .then(files.list(DIRECTORY))
                .flatMapMany(Flux::fromIterable)
                .filter(name -> name.endsWith(".json"))
                .concatMap(name -> {
                    String operationId = name.substring(DIRECTORY.length(), name.length() - ".json".length());
                    // A sidecar that vanished between list and read was finished by someone else: benign.
                    return read(operationId).flatMap(Mono::justOrEmpty);
                });
    }

    static Sidecar parse(String operationId, byte[] content) {
        Sidecar sidecar;
        try {
            int version = JSON.readTree(content).path("schema_version").asInt(-1);
            if (version > Sidecar.SCHEMA_VERSION) {
                throw new RecoveryRequired(operationId, "sidecar " + operationId + " has schema_version " + version
                        + ", newer than this build understands (" + Sidecar.SCHEMA_VERSION + "); upgrade omnigraph", null);
            }
            sidecar = JSON.readValue(content, Sidecar.class);
        } catch (IOException e) {
            throw new RecoveryRequired(operationId, "sidecar " + operationId + " is unreadable (" + e.getMessage()
                    .lines().findFirst().orElse("") + "); it was left on disk for an operator", e);
        }
        if (!operationId.equals(sidecar.operationId())) {
            throw new RecoveryRequired(operationId, "sidecar file " + operationId + " names operation "
                    + sidecar.operationId(), null);
        }
        return sidecar;
    }

    /** For tests and diagnostics: the JSON text of a sidecar. */
    public static String toJson(Sidecar sidecar) {
        try {
            return JSON.writeValueAsString(sidecar);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

}

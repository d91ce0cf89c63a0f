package dev.omnigraph.engine;

import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.SchemaFiles;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.manifest.ManifestSchema;
import dev.omnigraph.storage.manifest.ManifestStore;
import dev.omnigraph.storage.manifest.TableEntry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.omnigraph.storage.root.GraphRoot;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * One {@code init} of a new graph root: claim the root ({@code __init_claim.json}, create-if-absent), create one
 * empty dataset per type, write the schema files, then {@code __manifest} last. An attempt that fails after
 * taking the claim removes exactly what it created (datasets, schema files, a partial manifest, the
 * {@code nodes/}/{@code edges/} directories and the root itself when it made them and they are empty), then the
 * claim, so the same init can simply be retried. Only a process that dies mid-init leaves a claim behind.
 */
final class GraphInit {
    static final String CLAIM = "__init_claim.json";
    /** Where init checks for an existing graph. */
    private static final String MANIFEST_MARKER = ManifestSchema.DIRECTORY + "/_versions";
    private static final Logger LOG = LoggerFactory.getLogger(GraphInit.class);

    private final StorageServices services;
    private final GraphRoot root;
    private final boolean rootCreated;
    private final SchemaFiles.Accepted accepted;
    private final Failpoints failpoints;
    private final ObjectStore files;
    private final ManifestStore manifest;
    /** Root-relative paths this attempt created (or started creating), removed again if it fails. */
    private final List<String> created = new CopyOnWriteArrayList<>();

    GraphInit(StorageServices services, GraphRoot root, boolean rootCreated, SchemaFiles.Accepted accepted,
              Failpoints failpoints, ObjectStore files, ManifestStore manifest) {
        this.services = services;
        this.root = root;
        this.rootCreated = rootCreated;
        this.accepted = accepted;
        this.failpoints = failpoints;
        this.files = files;
        this.manifest = manifest;
    }

    /** Completes when the graph exists; fails with the root as it found it (claim included) otherwise. */
    Mono<Void> run() {
        return graphExists()
                .flatMap(exists -> exists
                        ? Mono.error(new Conflict("a graph already exists at " + root))
                        : files.putIfAbsent(CLAIM, claim()))
                .flatMap(claimed -> claimed ? Mono.<Void>empty() : Mono.error(new Conflict(
                        "another init of " + root + " is running or was interrupted (" + CLAIM
                                + " exists); if no init is running, remove the directory and init again")))
                .then(Mono.defer(() -> build().onErrorResume(failure -> abandon().then(Mono.error(failure)))))
                .then(failpoints.hit(FailpointCatalog.INIT_BEFORE_CLAIM_DELETE).then(files.delete(CLAIM))
                        .then()
                        // The manifest is written: the graph exists, and a leftover claim is never read again.
                        .onErrorResume(error -> {
                            LOG.warn("init of {} succeeded but could not remove {}: {}", root, CLAIM, error.toString());
                            return Mono.empty();
                        }));
    }

    /** A local root has a {@code _versions} directory; an object store has only keys below it. */
    private Mono<Boolean> graphExists() {
        return root instanceof GraphRoot.Local ? files.exists(MANIFEST_MARKER)
                : files.list(MANIFEST_MARKER + "/").map(keys -> !keys.isEmpty());
    }

    private Mono<Void> build() {
        // A graph created where another was (deleted) restarts its tables' versions: no cached adjacency may survive.
        dev.omnigraph.engine.read.TopologyCache.shared().dropRoot(root.uri());
        dev.omnigraph.engine.read.KeyRowsCache.shared().dropRoot(root.uri());
        return failpoints.hit(FailpointCatalog.INIT_AFTER_CLAIM)
                .thenMany(Flux.fromIterable(accepted.catalog().tables()).concatMap(this::createTable))
                .collectList()
                .flatMap(entries -> failpoints.hit(FailpointCatalog.INIT_AFTER_TABLES)
                        .then(Mono.fromRunnable(() -> List.of(SchemaFiles.SOURCE, SchemaFiles.IR, SchemaFiles.STATE)
                                .forEach(created::add)))
                        .then(SchemaFiles.write(files, accepted))
                        .then(failpoints.hit(FailpointCatalog.INIT_AFTER_SCHEMA_FILES))
                        .then(Mono.fromRunnable(() -> created.add(ManifestSchema.DIRECTORY)))
                        .then(manifest.create(entries, Ulid.next(), Omnigraph.nowMicros(),
                                accepted.state().schemaIrHash())))
                .then();
    }

    /** Creates one table's dataset, remembering it as this attempt's only when nothing was at its path. */
    private Mono<TableEntry> createTable(CatalogTable table) {
        String relative = table.datasetPath();
        return isAbsent(relative)
                .doOnNext(free -> {
                    if (free) {
                        created.add(relative);
                    }
                })
                .then(services.tables().create(root.uri() + "/" + relative, table.arrowSchema()))
                .map(snapshot -> new TableEntry(table.tableKey(), table.typeId(), table.incarnationId(),
                        table.datasetPath(), snapshot.version(), Optional.empty(), 0, false));
    }

    private Mono<Boolean> isAbsent(String relative) {
        return root instanceof GraphRoot.Local local
                ? services.scheduler().call(() -> Files.notExists(local.directory().resolve(relative)))
                : files.list(relative + "/").map(List::isEmpty);
    }

    /** Removes what this attempt created, newest first, then the claim; a failure here keeps the claim. */
    private Mono<Void> abandon() {
        List<String> ours = List.copyOf(created);
        Mono<Void> removal = root instanceof GraphRoot.Local local ? services.scheduler().run(() -> {
                Path dir = local.directory();
                for (int i = ours.size() - 1; i >= 0; i--) {
                    deleteTree(dir.resolve(ours.get(i)));
                }
                for (Path parent : ours.stream().map(key -> dir.resolve(key).getParent()).distinct().toList()) {
                    if (!parent.equals(dir)) {
                        deleteIfEmpty(parent);
                    }
                }
            })
            // An object store has no directories: remove every object under each created path, and the path itself.
            : Flux.fromIterable(ours).concatMap(key -> files.list(key + "/")
                    .flatMapMany(Flux::fromIterable).concatWith(Mono.just(key)).concatMap(files::delete)).then();
        return removal.then(files.delete(CLAIM)).then(Mono.fromCallable(() -> rootCreated)
                .flatMap(remove -> remove && root instanceof GraphRoot.Local local
                        ? services.scheduler().run(() -> deleteIfEmpty(local.directory())) : Mono.empty()))
                .onErrorResume(cleanup -> {
                    LOG.warn("a failed init of {} could not remove what it created: {}", root, cleanup.toString());
                    return Mono.empty();
                });
    }

    private static void deleteTree(Path path) throws IOException {
        if (Files.notExists(path)) {
            return;
        }
        try (Stream<Path> tree = Files.walk(path)) {
            for (Path entry : tree.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(entry);
            }
        }
    }

    private static void deleteIfEmpty(Path dir) throws IOException {
        try {
            Files.deleteIfExists(dir);
        } catch (DirectoryNotEmptyException inUse) {
            // Not only ours (or not empty): keep it.
        }
    }

    private static byte[] claim() {
        return ("{\"claimed_at_micros\":" + Omnigraph.nowMicros() + ",\"claim_id\":\"" + Ulid.next() + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }
}

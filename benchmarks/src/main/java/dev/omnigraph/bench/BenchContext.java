package dev.omnigraph.bench;

import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.storage.CountingObjectStore;
import dev.omnigraph.storage.CountingTableStorage;
import dev.omnigraph.storage.LanceTableStorage;
import dev.omnigraph.storage.StorageCallCounter;
import dev.omnigraph.storage.StorageScheduler;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;
import reactor.core.publisher.Mono;

/**
 * What every scenario shares in one run: the options, one storage scheduler, and storage services whose table
 * storage and object stores count every call into one {@link StorageCallCounter}. Raw-Lance baselines use the
 * same counted tables, so their calls per operation are reported the same way.
 */
public final class BenchContext implements AutoCloseable {
    static final Duration OP_TIMEOUT = Duration.ofMinutes(30);

    private final BenchOptions options;
    private final StorageCallCounter counter = new StorageCallCounter();
    private final StorageScheduler scheduler = StorageScheduler.create();
    private final StorageServices services;
    private Optional<Neo4jEmbedded> neo4j;
    private String neo4jStatus = "not started";

    public BenchContext(BenchOptions options) throws IOException {
        this.options = options;
        CountingTableStorage tables = new CountingTableStorage(new LanceTableStorage(scheduler), counter);
        this.services = new StorageServices(scheduler, tables)
                .withObjectStores(store -> new CountingObjectStore(store, counter));
        Files.createDirectories(options.work());
    }

    public BenchOptions options() {
        return options;
    }

    public StorageServices services() {
        return services;
    }

    public StorageCallCounter counter() {
        return counter;
    }

    /** A fresh, empty directory for one scenario's graphs and tables. */
    public Path workDir(String name) throws IOException {
        Path dir = options.work().resolve(name);
        deleteTree(dir);
        Files.createDirectories(dir);
        return dir;
    }

    /**
     * The run's Neo4j, started on first use and shared by the scenarios; empty when it did not start within
     * the start budget (only the --quick smoke sets one). See {@link #neo4jStatus()} for what happened.
     */
    public synchronized Optional<Neo4jEmbedded> neo4j() throws Exception {
        if (neo4j == null) {
            Path home = options.work().resolve("neo4j");
            deleteTree(home);
            log("starting Neo4j embedded in " + home + " …");
            neo4j = Neo4jEmbedded.start(home, options.neo4jStartBudgetSeconds());
            neo4jStatus = neo4j.map(n -> String.format(java.util.Locale.ROOT, "Neo4j embedded started in %.1f s",
                    n.startSeconds())).orElse(String.format(java.util.Locale.ROOT,
                    "Neo4j SKIPPED: it did not start within the %.0f s budget of this run",
                    options.neo4jStartBudgetSeconds()));
            log(neo4jStatus);
        }
        return neo4j;
    }

    public synchronized String neo4jStatus() {
        return neo4jStatus;
    }

    /** Runs one operation unmeasured (warm-up or setup). */
    public <T> T run(Supplier<Mono<T>> op) {
        return op.get().block(OP_TIMEOUT);
    }

    /** Runs one operation, measured into {@code row} unless it is null (a warm-up), and returns its value. */
    public <T> T runOrMeasure(Series row, Supplier<Mono<T>> op) {
        return row == null ? run(op) : measure(row, op);
    }

    /** Runs one operation, recording its wall time and its storage calls in {@code row}. */
    public <T> T measure(Series row, Supplier<Mono<T>> op) {
        return measure(row, 1, () -> op.get().block(OP_TIMEOUT));
    }

    /** Runs a blocking action that performs {@code ops} operations, recording one sample and the calls. */
    public <T> T measure(Series row, long ops, ThrowingSupplier<T> action) {
        Usage before = Usage.mark(counter);
        long start = System.nanoTime();
        T result;
        try {
            result = action.get();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        row.sampleNanos(System.nanoTime() - start);
        before.chargeTo(row, ops);
        return result;
    }

    /** Bytes of every regular file under {@code root}. */
    static long bytesUnder(Path root) throws IOException {
        try (java.util.stream.Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).mapToLong(file -> {
                try {
                    return Files.size(file);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).sum();
        }
    }

    public void log(String message) {
        System.err.println("[bench] " + message);
    }

    @FunctionalInterface
    public interface ThrowingSupplier<T> {
        T get() throws Exception;
    }

    @Override
    public void close() throws IOException {
        if (neo4j != null) {
            neo4j.ifPresent(Neo4jEmbedded::close);
        }
        services.tables().close();
        scheduler.close();
        if (!options.keepWork()) {
            deleteTree(options.work());
        }
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}

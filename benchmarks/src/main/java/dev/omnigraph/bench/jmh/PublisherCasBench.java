package dev.omnigraph.bench.jmh;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.ManifestConflict;
import dev.omnigraph.storage.manifest.ExpectedHead;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestBatchPublisher;
import dev.omnigraph.storage.manifest.ManifestStore;
import dev.omnigraph.storage.manifest.PublishRequest;
import dev.omnigraph.storage.manifest.TableEntry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The publisher's compare-and-swap on {@code __manifest}: load the branch state, check the branch and the pins,
 * stage one Update (stamp, table, head and commit rows) and commit it once; on Lance contention re-read and retry.
 * Every iteration starts from a freshly initialised graph, so iterations see the same (shallow) manifest history.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--add-opens=java.base/java.nio=ALL-UNNAMED")
public class PublisherCasBench {
    private StorageServices services;
    private Path dir;
    private ManifestBatchPublisher publisher;
    private TableEntry pin;

    @Setup(Level.Iteration)
    public void setup() throws IOException {
        services = StorageServices.create();
        dir = Files.createTempDirectory("omnigraph-jmh-publisher");
        Omnigraph graph = Omnigraph.at(dir.resolve("g")).services(services).init("node Note { text: String }\n").block();
        ManifestStore store = new ManifestStore(graph.root().toString(), services.tables());
        publisher = new ManifestBatchPublisher(store);
        pin = store.load("main").block().table("node:Note").orElseThrow();
    }

    @TearDown(Level.Iteration)
    public void tearDown() throws IOException {
        services.close();
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Re-pins the table at its own version: a real publish (new manifest version and commit row), no data write. */
    private GraphCommit publish() {
        long micros = System.currentTimeMillis() * 1000;
        return publisher.publish(new PublishRequest("main", ExpectedHead.any(), Optional.empty(),
                Map.of(pin.tableKey(), pin.version()), List.of(pin), Ulid.next(), Optional.empty(),
                Optional.of("jmh"), micros, "jmh:publish")).block();
    }

    @Benchmark
    public GraphCommit publishUncontended() {
        return publish();
    }

    /** Per-thread outcome counts of the contended benchmark, reported by JMH beside the score. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Outcomes {
        public long published;
        /** Publishes that lost {@value ManifestBatchPublisher#PUBLISHER_RETRY_BUDGET} + 1 races in a row. */
        public long exhausted;
    }

    /**
     * Two publishers racing on one branch, back to back: the loser of each Lance commit re-reads and retries.
     * In-process writers never do this (the branch gate serialises them); it models two processes.
     */
    @Benchmark
    @Threads(2)
    public GraphCommit publishTwoThreads(Outcomes outcomes) {
        try {
            GraphCommit commit = publish();
            outcomes.published++;
            return commit;
        } catch (ManifestConflict gaveUp) {
            outcomes.exhausted++;
            return null;
        }
    }
}

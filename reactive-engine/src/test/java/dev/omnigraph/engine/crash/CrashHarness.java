package dev.omnigraph.engine.crash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.recovery.SidecarRecovery;
import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.testing.ChildJvm;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import reactor.core.publisher.Flux;

/**
 * Builds crash cases: a seeded template graph per scenario, its state before and after the scenario (the
 * after-state from a reference run on a copy), child JVMs that die at a failpoint, and state fingerprints that
 * ignore minted ids (edges are compared by endpoints and properties).
 */
public final class CrashHarness {
    /** The logical graph: rows per table plus the user-visible commit list (recovery's own commits excluded). */
    record GraphState(Map<String, List<String>> rows, List<String> userCommits) {
    }

    /** A seeded template and the states the scenario goes between. */
    record Expectation(Path template, GraphState before, GraphState after) {
    }

    /** Keyed by the scratch directory too: each test class seeds in its own, deleted when that class ends. */
    private record TemplateKey(Path scratch, CrashScenario scenario) {
    }

    private static final Map<TemplateKey, Expectation> EXPECTATIONS = new ConcurrentHashMap<>();

    private CrashHarness() {
    }

    static synchronized Expectation expectation(CrashScenario scenario, StorageServices services, Path scratch) {
        return EXPECTATIONS.computeIfAbsent(new TemplateKey(scratch, scenario), key -> {
            CrashScenario s = key.scenario();
            try {
                Path root = scratch.resolve("template-" + s);
                Omnigraph seeded = Omnigraph.init(services, root, CrashScenario.SCHEMA).block();
                seeded.load("main", LoadMode.APPEND, Flux.just(ByteBuffer.wrap(CrashScenario.SEED.getBytes(StandardCharsets.UTF_8))),
                        LoadOptions.DEFAULT).block();
                GraphState before = state(seeded, services);
                Path reference = scratch.resolve("reference-" + s);
                copy(root, reference);
                Omnigraph ref = Omnigraph.open(services, reference, OpenMode.READ_WRITE).block();
                s.run(ref).block();
                return new Expectation(root, before, state(ref, services));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    /** Runs {@link CrashMain} in a child JVM with {@code failpoints} armed; returns its exit code and output. */
    static ChildRun runChild(Path root, String scenario, String failpoints, Path tmp) throws Exception {
        return runChild(root.toString(), scenario, failpoints, tmp, List.of());
    }

    /** As above for a root given as text (a path or an {@code s3://} URI), with extra environment entries. */
    static ChildRun runChild(String root, String scenario, String failpoints, Path tmp, List<String> env) throws Exception {
        List<String> environment = new ArrayList<>(env);
        environment.add("OMNIGRAPH_FAILPOINTS=" + failpoints);
        ChildJvm.Finished child = ChildJvm.run(CrashMain.class, tmp, List.of(root, scenario), environment, java.time.Duration.ofSeconds(120));
        String output = child.output();
        return new ChildRun(child.exitValue(), output);
    }

    /**
     * Runs {@code main} (args: root, action) in a child JVM with {@code failpoints} armed; true when it died at a
     * failpoint, false when it finished (any other exit fails the test with the child's output).
     */
    public static boolean diedAt(Class<?> main, Path root, String action, String failpoints, Path tmp) throws Exception {
        ChildJvm.Finished child = ChildJvm.run(main, tmp, List.of(root.toString(), action), List.of("OMNIGRAPH_FAILPOINTS=" + failpoints), java.time.Duration.ofSeconds(120));
        String output = child.output();
        assertThat(child.exitValue()).as(output).isIn(0, dev.omnigraph.storage.Failpoints.EXIT_CODE);
        return child.exitValue() == dev.omnigraph.storage.Failpoints.EXIT_CODE;
    }

    record ChildRun(int exitCode, String output) {
        boolean died() {
            return exitCode == dev.omnigraph.storage.Failpoints.EXIT_CODE;
        }
    }

    static GraphState state(Omnigraph graph) {
        return state(graph, "main", servicesOf(graph));
    }

    static GraphState state(Omnigraph graph, StorageServices services) {
        return state(graph, "main", services);
    }

    /** The logical state of {@code branch}: its rows through its pins and its user-visible commits. */
    static GraphState state(Omnigraph graph, String branch, StorageServices services) {
        Map<String, List<String>> rows = new TreeMap<>();
        var snapshot = graph.snapshot(ReadTarget.branch(branch)).block();
        for (var table : snapshot.tables()) {
            TableRef ref = new TableRef(graph.location().uri() + "/" + table.path(), table.lanceBranch());
            List<String> canonical = new ArrayList<>();
            services.tables().open(ref, OptionalLong.of(table.version()))
                    .flatMapMany(pinned -> services.tables().scan(pinned, ScanRequest.all()))
                    .flatMapIterable(RowBatch::rows)
                    .toStream()
                    .forEach(row -> {
                        Map<String, Object> sorted = new TreeMap<>(row);
                        if (table.kind().equals("edge")) {
                            sorted.remove("id"); // minted edge ids differ between runs
                        }
                        canonical.add(sorted.toString());
                    });
            canonical.sort(String::compareTo);
            rows.put(table.tableKey(), canonical);
        }
        List<String> commits = graph.commits(branch)
                .filter(commit -> !commit.actorId().equals(java.util.Optional.of(SidecarRecovery.RECOVERY_ACTOR)))
                .map(GraphCommit::operation)
                .collectList().block();
        return new GraphState(rows, commits);
    }

    private static StorageServices servicesOf(Omnigraph graph) {
        return CrashMatrixTest.services;
    }

    public static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path source : files.toList()) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(source, target);
                }
            }
        }
    }

    /** SHA-256 of every file under {@code root}, by relative path: proves a tree was not written to. */
    public static Map<String, String> digests(Path root) throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                try {
                    out.put(root.relativize(file).toString(), java.util.HexFormat.of().formatHex(
                            java.security.MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file))));
                } catch (java.security.NoSuchAlgorithmException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return out;
    }
}

package dev.omnigraph.engine.compat;

import dev.omnigraph.engine.internal.HandleInternals;
import static dev.omnigraph.engine.compat.Fixture039.ACTOR;
import static dev.omnigraph.engine.compat.Fixture039.BASE;
import static dev.omnigraph.engine.compat.Fixture039.FEATURE;

import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.compat.Fixture039.BranchRecord;
import dev.omnigraph.engine.compat.Fixture039.CommitRecord;
import dev.omnigraph.engine.compat.Fixture039.PendingRecord;
import dev.omnigraph.engine.compat.Fixture039.PendingWrite;
import dev.omnigraph.engine.crash.CrashHarness;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Writes the Lance 0.39 compatibility fixture: {@code java … Fixture039Main <out-dir>} (the test class path; see
 * {@code Lance039FixtureCompatTest}) builds, in a temporary directory, the root {@code base/} and one copy of it per
 * {@link PendingWrite} left with that write's recovery sidecar by killing a child JVM ({@code Runtime.halt}, the crash
 * harness) at its failpoint, records everything in {@code expected.json}, then copies the roots to {@code out-dir}
 * (replacing those roots and {@code expected.json}) and deletes the temporary directory. Refuses to run on any Lance but 0.39.0: the fixture
 * is what that build wrote. With two arguments ({@code <root> <PendingWrite>}) it is the child: it opens the root
 * read-write and runs the write, with failpoints armed from {@code OMNIGRAPH_FAILPOINTS}.
 */
public final class Fixture039Main {
    static final String LANCE_JAR = "lance-core-0.39.0.jar";

    private Fixture039Main() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 2) {
            child(Path.of(args[0]), PendingWrite.valueOf(args[1]));
            return;
        }
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: Fixture039Main <out-dir>");
        }
        boolean lance039 = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .anyMatch(entry -> entry.endsWith(File.separator + LANCE_JAR));
        if (!lance039) {
            throw new IllegalStateException("the fixture must be written by the Lance 0.39.0 build: " + LANCE_JAR
                    + " is not on the class path");
        }
        Path out = Path.of(args[0]).toAbsolutePath();
        Path scratch = Files.createTempDirectory("omnigraph-fixture-039-").toRealPath();
        try (StorageServices services = StorageServices.create()) {
            Fixture039.Expected expected = generate(services, scratch);
            replace(scratch.resolve("gen"), out);
            Files.writeString(out.resolve(Fixture039.EXPECTED), Fixture039.JSON.writeValueAsString(expected) + "\n");
        } finally {
            deleteTree(scratch);
        }
        System.out.println("fixture written to " + out);
        System.exit(0);
    }

    private static Fixture039.Expected generate(StorageServices services, Path scratch) throws Exception {
        Path gen = scratch.resolve("gen");
        Path base = gen.resolve(BASE);
        Fixture039.RootRecord baseRecord;
        try (Omnigraph graph = Omnigraph.init(services, base, Fixture039.SCHEMA).block()) {
            buildBase(graph);
            baseRecord = record(graph, List.of("main", FEATURE));
        }
        Map<String, PendingRecord> pending = new LinkedHashMap<>();
        for (PendingWrite write : PendingWrite.values()) {
            pending.put(write.root, pending(services, write, base, baseRecord, scratch));
        }
        Path followUp = scratch.resolve("reference").resolve("follow-up");
        CrashHarness.copy(base, followUp);
        Fixture039.FollowUpRecord followUpRecord;
        try (Omnigraph graph = Omnigraph.open(services, followUp, OpenMode.READ_WRITE).block()) {
            Fixture039.followUp(graph).block();
            followUpRecord = new Fixture039.FollowUpRecord(Fixture039.rows(graph, ReadTarget.branch("main")),
                    Fixture039.rows(graph, ReadTarget.branch(FEATURE)), Fixture039.queries(graph, ReadTarget.branch("main")));
        }
        return new Fixture039.Expected("com.lancedb:lance-core:0.39.0", Fixture039Main.class.getName(), gen.toString(),
                Fixture039.SCHEMA, baseRecord, pending, followUpRecord);
    }

    /** The base's history: a load, three mutations, an index build, a merge load, a branch with two writes, optimize. */
    private static void buildBase(Omnigraph graph) {
        Fixture039.load(graph, "main", LoadMode.APPEND, Fixture039.SEED).block();
        Fixture039.mutate(graph, "main", "addFay").block();
        Fixture039.mutate(graph, "main", "olderAda").block();
        Fixture039.mutate(graph, "main", "dropCy").block();
        graph.ensureIndexes("main", Optional.of(ACTOR)).block().commit().orElseThrow();
        Fixture039.load(graph, "main", LoadMode.MERGE,
                "{\"type\":\"Doc\",\"data\":{\"id\":\"d1\",\"title\":\"storage layout\",\"body\":\"one lance dataset per type\"}}",
                "{\"type\":\"Company\",\"data\":{\"name\":\"Globex\",\"founded\":2001}}").block();
        graph.createBranch(FEATURE, Optional.empty()).block();
        // First touch on the branch: node:Person and edge:WorksAt are forked by this write, the rest stay inherited.
        Fixture039.mutate(graph, FEATURE, "addGil").block();
        Fixture039.load(graph, FEATURE, LoadMode.MERGE,
                "{\"type\":\"Doc\",\"data\":{\"id\":\"d3\",\"title\":\"branch notes\",\"body\":\"written on the branch\"}}",
                "{\"edge\":\"Wrote\",\"from\":\"Gil\",\"to\":\"d3\",\"data\":{\"id\":\"r3\"}}").block();
        Fixture039.mutate(graph, "main", "rebio").block(); // main moves on: Person changed on both sides
        graph.optimize("main", Optional.of(ACTOR)).block();
    }

    private static Fixture039.RootRecord record(Omnigraph graph, List<String> branches) {
        Map<String, BranchRecord> byBranch = new TreeMap<>();
        Map<String, CommitRecord> commits = new TreeMap<>();
        for (String branch : branches) {
            byBranch.put(branch, Fixture039.branchRecord(graph, branch));
            for (GraphCommit commit : Fixture039.commits(graph, branch)) {
                commits.computeIfAbsent(commit.id(), id -> Fixture039.commitRecord(graph, commit));
            }
        }
        return new Fixture039.RootRecord(byBranch, commits);
    }

    /**
     * One pending root: a copy of the base whose write a child JVM dies in, and, on another copy, the same write run
     * to its end (the new graph). The old graph is the base's branch.
     */
    private static PendingRecord pending(StorageServices services, PendingWrite write, Path base,
                                         Fixture039.RootRecord baseRecord, Path scratch) throws Exception {
        Path reference = scratch.resolve("reference").resolve(write.root);
        CrashHarness.copy(base, reference);
        String referenceCommit;
        List<String> referenceCommits;
        Map<String, List<String>> newRows;
        try (Omnigraph graph = Omnigraph.open(services, reference, OpenMode.READ_WRITE).block()) {
            referenceCommit = write.run(graph).block();
            referenceCommits = Fixture039.userCommits(graph, write.branch);
            newRows = Fixture039.rows(graph, ReadTarget.branch(write.branch));
        }

        Path root = scratch.resolve("gen").resolve(write.root);
        CrashHarness.copy(base, root);
        boolean died = CrashHarness.diedAt(Fixture039Main.class, root, write.name(), write.failpoint + "=exit",
                scratch.resolve("tmp-" + write.root));
        if (!died) {
            throw new IllegalStateException(write + " finished instead of dying at " + write.failpoint);
        }
        Sidecar sidecar;
        try (Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_ONLY).block()) {
            List<Sidecar> sidecars = HandleInternals.of(graph).pendingSidecars().collectList().block();
            if (sidecars.size() != 1) {
                throw new IllegalStateException(write + " left " + sidecars.size() + " sidecars, not one");
            }
            sidecar = sidecars.get(0);
        }
        String newCommit = sidecar.protocolV3().lineage().graphCommitId();
        List<String> newCommits = new ArrayList<>(referenceCommits);
        newCommits.replaceAll(id -> id.equals(referenceCommit) ? newCommit : id);
        BranchRecord old = baseRecord.branches().get(write.branch);
        String source = write.source.orElse(null);
        return new PendingRecord(write.name(), write.branch, write.failpoint, sidecar.writerKind().name(),
                sidecar.operationId(), write.outcome, newCommit, sidecar.protocolV3().rollbackGraphCommitId(),
                old.commits(), old.rows(), newCommits, newRows, source,
                source == null ? null : baseRecord.branches().get(source).rows());
    }

    /** The child: opens {@code root} read-write and runs {@code write}; an armed failpoint halts it with 137. */
    private static void child(Path root, PendingWrite write) {
        try (StorageServices services = StorageServices.create()) {
            Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
            try {
                write.run(graph).block();
            } catch (RuntimeException failed) {
                System.out.println("FAILED " + failed);
            }
            System.out.println("DONE");
        }
        System.exit(0);
    }

    /** Replaces each root under {@code to} by the one under {@code from}; other files there (the README) stay. */
    private static void replace(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> roots = Files.list(from)) {
            for (Path root : roots.toList()) {
                deleteTree(to.resolve(root.getFileName().toString()));
                CrashHarness.copy(root, to.resolve(root.getFileName().toString()));
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}

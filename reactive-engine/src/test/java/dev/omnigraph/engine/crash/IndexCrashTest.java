package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.internal.HandleInternals;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.testing.ChildJvm;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import reactor.core.publisher.Flux;

/**
 * {@code index ensure} killed ({@code Runtime.halt}) in a child JVM at each of its failpoints, on main and on a
 * graph branch (first-touch forks): reopening read-write gives exactly the state before (no index published, rows
 * and user commits unchanged, forks gone) or after (every index published, one more commit), no sidecar is left,
 * the audit log holds exactly the one row recovery owed, and ensure then converges and is a no-op once more.
 */
class IndexCrashTest {
    /** The schema the graph is loaded under: the load builds its key and endpoint indexes itself. */
    static final String LOADED = """
            node Doc {
                slug: String @key
                title: String
                rank: I32?
            }
            edge Cites: Doc -> Doc {
                weight: I64?
            }
            """;
    /** The schema applied after the load: three more indexes, which only an ensure builds. */
    static final String SCHEMA = LOADED.replace("title: String", "title: String @index")
            .replace("rank: I32?", "rank: I32? @index").replace("weight: I64?", "weight: I64? @index");
    /** What the load built. */
    static final Map<String, List<String>> BASE = Map.of(
            "node:Doc", List.of("og_btree_id"),
            "edge:Cites", List.of("og_btree_dst", "og_btree_id", "og_btree_src"));
    /** After the ensure: one CreateIndex transaction per table (Doc: commit 1, Cites: commit 2). */
    static final Map<String, List<String>> ALL = Map.of(
            "node:Doc", List.of("og_btree_id", "og_btree_rank", "og_inverted_title"),
            "edge:Cites", List.of("og_btree_dst", "og_btree_id", "og_btree_src", "og_btree_weight"));

    static StorageServices services;
    @TempDir
    static Path dir;
    static Path seeded;

    @BeforeAll
    static void seed() {
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
        seeded = dir.resolve("seeded");
        try (Omnigraph graph = Omnigraph.init(services, seeded, LOADED).block()) {
            List<String> lines = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                lines.add("{\"type\":\"Doc\",\"data\":{\"slug\":\"d" + i + "\",\"title\":\"t " + i + "\",\"rank\":" + i + "}}");
                if (i > 0) lines.add("{\"edge\":\"Cites\",\"from\":\"d" + i + "\",\"to\":\"d" + (i - 1) + "\",\"data\":{\"weight\":" + i + "}}");
            }
            graph.load("main", LoadMode.APPEND, Flux.fromIterable(lines)
                    .map(line -> ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8))), LoadOptions.DEFAULT).block();
            assertThat(indexes(graph, "main")).isEqualTo(BASE);
            graph.applySchema(SCHEMA, false, Optional.empty()).block();
            assertThat(indexes(graph, "main")).as("adding @index changes no table").isEqualTo(BASE);
            graph.createBranch("dev", Optional.empty()).block();
        }
    }

    @AfterAll
    static void close() {
        services.tables().close();
    }

    @ParameterizedTest
    @CsvSource({
            "main, ensure_indices.after_gates, none",
            "main, ensure_indices.after_arm, back",
            "main, ensure_indices.after_commit:1, back",
            "main, ensure_indices.after_commit:2, back",
            "main, ensure_indices.after_confirm, forward",
            "main, ensure_indices.after_publish, forward",
            "main, ensure_indices.before_sidecar_delete, forward",
            "dev, ensure_indices.after_fork, back",
            "dev, ensure_indices.after_commit:1, back",
            "dev, ensure_indices.after_commit:2, back",
            "dev, ensure_indices.after_confirm, forward",
            "dev, ensure_indices.after_publish, forward",
    })
    void reopenGivesBeforeOrAfterExactly(String branch, String point, String outcome) throws Exception {
        Path root = dir.resolve("crash-" + branch + "-" + point.replace('.', '_').replace(':', '_'));
        CrashHarness.copy(seeded, root);
        CrashHarness.GraphState before = state(root, branch);
        child(root, branch, point);
        try (Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_WRITE).block()) {
            checkResolved(graph, branch, before, outcome);
        }
    }

    /** Recovery itself killed half-way through its rollback restores: the next open finishes the rollback exactly. */
    @Test
    void aRecoveryKilledBetweenItsRestoresConvergesOnReopen() throws Exception {
        Path root = dir.resolve("crash-restore");
        CrashHarness.copy(seeded, root);
        CrashHarness.GraphState before = state(root, "main");
        child(root, "main", "ensure_indices.after_commit:2");
        child(root, "open", "recovery.sweep.after_restore:1");
        try (Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_WRITE).block()) {
            checkResolved(graph, "main", before, "back");
        }
    }

    private static void checkResolved(Omnigraph graph, String branch, CrashHarness.GraphState before, String outcome) {
        CrashHarness.GraphState after = CrashHarness.state(graph, branch, services);
        assertThat(after.rows()).isEqualTo(before.rows());
        assertThat(HandleInternals.of(graph).pendingSidecars().collectList().block()).isEmpty();
        List<RecoveryRecord> audit = graph.recoveries()
                .filter(r -> r.sidecarWriterKind().equals("EnsureIndices")).collectList().block();
        Map<String, Long> mainBefore = pinsOf(graph, "main");
        switch (outcome) {
            case "none" -> {
                assertThat(audit).isEmpty();
                assertThat(after.userCommits()).isEqualTo(before.userCommits());
                assertThat(indexes(graph, branch)).isEqualTo(BASE);
            }
            case "back" -> {
                assertThat(audit).singleElement().extracting(RecoveryRecord::kind).isEqualTo(RecoveryRecord.Kind.RolledBack);
                assertThat(after.userCommits()).isEqualTo(before.userCommits());
                assertThat(indexes(graph, branch)).isEqualTo(BASE);
            }
            default -> {
                assertThat(audit).hasSizeLessThanOrEqualTo(1); // a publish that finished needs no rollback row
                assertThat(after.userCommits()).hasSize(before.userCommits().size() + 1).startsWith("ensure_indices");
                assertThat(indexes(graph, branch)).isEqualTo(ALL);
            }
        }
        // Ensure converges from either side, and is a no-op afterwards; main is never touched by a branch's ensure.
        graph.ensureIndexes(branch, Optional.empty()).block();
        assertThat(indexes(graph, branch)).isEqualTo(ALL);
        assertThat(graph.ensureIndexes(branch, Optional.empty()).block().noop()).isTrue();
        if (!branch.equals("main")) {
            assertThat(pinsOf(graph, "main")).isEqualTo(mainBefore);
        }
    }

    private static void child(Path root, String mode, String point) throws Exception {
        ChildJvm.Finished child = ChildJvm.run(IndexCrashMain.class, dir.resolve("tmp-" + root.getFileName() + "-" + mode),
                List.of(root.toString(), mode), List.of(Failpoints.ENV + "=" + point + "=exit"), java.time.Duration.ofSeconds(180));
        String output = child.output();
        assertThat(child.exitValue()).as("child died at %s: %s", point, output).isEqualTo(Failpoints.EXIT_CODE);
    }

    private static CrashHarness.GraphState state(Path root, String branch) {
        try (Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_ONLY).block()) {
            return CrashHarness.state(graph, branch, services);
        }
    }

    private static Map<String, Long> pinsOf(Omnigraph graph, String branch) {
        Map<String, Long> out = new TreeMap<>();
        graph.snapshot(ReadTarget.branch(branch)).block().tables().forEach(t -> out.put(t.tableKey(), t.version()));
        return out;
    }

    private static Map<String, List<String>> indexes(Omnigraph graph, String branch) {
        Map<String, List<String>> out = new TreeMap<>();
        for (var table : graph.snapshot(ReadTarget.branch(branch)).block().tables()) {
            TableRef ref = new TableRef(graph.root().resolve(table.path()).toString(), table.lanceBranch());
            out.put(table.tableKey(), services.tables().indexNames(ref, table.version()).block());
        }
        return out;
    }
}

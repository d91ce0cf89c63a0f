package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.evolve.SchemaApplier;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.testing.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A schema apply killed ({@code Runtime.halt}) at each of its failpoints in a child JVM: reopening read-write
 * gives exactly the old schema with the old data (crash before the effects were confirmed) or exactly the new
 * schema with the migrated data (after), never a mix; no sidecar or staging file is left; and the apply can
 * then be run again to the same result.
 */
class SchemaApplyCrashTest {
    /** Rename a type and a property, add a property, drop one (rewrite), add a type. */
    static final String TARGET = """
            node Human @rename_from("Person") {
                name: String @key
                years: I32? @rename_from("age")
                nickname: String?
            }
            node Note {
                text: String
            }
            node Tag {
                label: String @key
            }
            edge Knows: Human -> Human
            """;

    static StorageServices services;
    @TempDir
    static Path dir;
    static Path seeded;
    static Map<String, List<String>> oldState;
    static Map<String, List<String>> newState;

    @BeforeAll
    static void seed() throws IOException {
        services = EngineFixture.services();
        seeded = dir.resolve("seeded");
        try (Omnigraph graph = Omnigraph.init(services, seeded, SchemaEvolutionTest.BASE).block()) {
            for (String[] p : new String[][] {{"Ada", "36"}, {"Bob", "40"}}) {
                graph.mutate("main", SchemaEvolutionTest.SEED, "add", Map.of("name", p[0], "age", Integer.parseInt(p[1])),
                        WriteOptions.DEFAULT).block();
            }
            graph.mutate("main", SchemaEvolutionTest.SEED, "knows", Map.of("a", "Ada", "b", "Bob"), WriteOptions.DEFAULT).block();
            oldState = state(graph);
        }
        Path reference = dir.resolve("reference");
        copy(seeded, reference);
        try (Omnigraph graph = Omnigraph.open(services, reference, OpenMode.READ_WRITE).block()) {
            graph.applySchema(TARGET, true, Optional.of("crash")).block();
            newState = state(graph);
        }
        assertThat(newState).isNotEqualTo(oldState);
    }

    @AfterAll
    static void close() {
        EngineFixture.close(services);
    }

    static Stream<String> points() {
        return SchemaApplier.POINTS.stream();
    }

    /** Before the sidecar is confirmed the apply rolls back; from confirmation on it rolls forward. */
    static boolean rollsForward(String point) {
        return SchemaApplier.POINTS.indexOf(point) >= SchemaApplier.POINTS.indexOf("schema_apply.after_confirm");
    }

    @ParameterizedTest
    @MethodSource("points")
    void reopenGivesOldOrNewNeverAMix(String point) throws Exception {
        Path root = dir.resolve("crash-" + point.replace('.', '_'));
        copy(seeded, root);
        ChildJvm.Finished child = ChildJvm.run(SchemaApplyCrashMain.class, dir.resolve("tmp-" + point.replace('.', '_')),
                List.of(root.toString()), List.of(Failpoints.ENV + "=" + point + "=exit"), java.time.Duration.ofSeconds(180));
        String output = child.output();
        assertThat(child.exitValue()).as("child died at %s: %s", point, output).isEqualTo(Failpoints.EXIT_CODE);

        if (point.endsWith("after_publish") || point.endsWith("before_contract_swap")) {
            // Published but not promoted: only a read-write open may finish it; a read-only one says so.
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> Omnigraph.open(services, root, OpenMode.READ_ONLY).block())
                    .isInstanceOf(dev.omnigraph.storage.error.RecoveryRequired.class);
        }
        try (Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_WRITE).block()) {
            boolean forward = rollsForward(point);
            assertThat(graph.schemaSource()).isEqualTo(forward ? TARGET : SchemaEvolutionTest.BASE);
            assertThat(state(graph)).isEqualTo(forward ? newState : oldState);
            assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
            // One audit row per recovered intent (none before the arm: nothing to recover), naming the outcome.
            List<RecoveryRecord> audit = graph.recoveries().collectList().block();
            if (point.endsWith("after_staging")) {
                assertThat(audit).isEmpty();
            } else {
                assertThat(audit).singleElement().satisfies(record -> {
                    assertThat(record.kind()).isEqualTo(forward ? RecoveryRecord.Kind.RolledForward : RecoveryRecord.Kind.RolledBack);
                    assertThat(record.sidecarWriterKind()).isEqualTo("SchemaApply");
                    assertThat(record.recoveryForActor()).contains("crash");
                });
            }
            try (Stream<Path> files = Files.list(root)) {
                assertThat(files.map(p -> p.getFileName().toString())).noneMatch(name -> name.endsWith(".staging"));
            }
            // The apply can be run (again) and converges on the same result.
            graph.applySchema(TARGET, true, Optional.of("crash")).block();
            assertThat(state(graph)).isEqualTo(newState);
            assertThat(graph.schemaSource()).isEqualTo(TARGET);
        }
    }

    static Stream<String> recoveryPoints() {
        return Stream.of("recovery.schema.after_plan", "recovery.schema.after_restore:1");
    }

    /**
     * The apply dies after its rewrites (unconfirmed: rolled back), then the recovery of the next open dies too,
     * after saving its restore plan or after a restore landed. The open after that recognises the restores that
     * landed (a table is restored once: exactly two versions past its pin), gives the old graph and audits once.
     */
    @ParameterizedTest
    @MethodSource("recoveryPoints")
    void aRecoveryKilledHalfWayConvergesWithoutRestoringTwice(String point) throws Exception {
        Path root = dir.resolve("rcrash-" + point.replace('.', '_').replace(':', '_'));
        copy(seeded, root);
        Map<String, Long> pinned;
        try (Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_ONLY).block()) {
            pinned = GraphTestSupport.versions(graph);
        }
        Path tmp = dir.resolve("rtmp-" + point.replace('.', '_').replace(':', '_'));
        ChildJvm.Finished apply = ChildJvm.run(SchemaApplyCrashMain.class, tmp, List.of(root.toString()),
                List.of(Failpoints.ENV + "=schema_apply.after_rewrites=exit"), java.time.Duration.ofSeconds(180));
        assertThat(apply.exitValue()).as(apply.output()).isEqualTo(Failpoints.EXIT_CODE);
        ChildJvm.Finished open = ChildJvm.run(SchemaApplyCrashMain.class, tmp, List.of(root.toString(), "open"),
                List.of(Failpoints.ENV + "=" + point + "=exit"), java.time.Duration.ofSeconds(180));
        assertThat(open.exitValue()).as("recovery died at %s: %s", point, open.output()).isEqualTo(Failpoints.EXIT_CODE);

        try (Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_WRITE).block()) {
            assertThat(graph.schemaSource()).isEqualTo(SchemaEvolutionTest.BASE);
            assertThat(state(graph)).isEqualTo(oldState);
            assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
            Map<String, Long> now = GraphTestSupport.versions(graph);
            pinned.forEach((table, version) -> {
                if (!table.contains("#") && !table.startsWith("__")) {
                    // untouched, or overwritten once and restored once
                    assertThat(now.get(table)).as(table).isIn(version, version + 2);
                }
            });
            assertThat(graph.recoveries().collectList().block()).singleElement()
                    .satisfies(record -> assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledBack));
            graph.applySchema(TARGET, true, Optional.of("crash")).block();
            assertThat(state(graph)).isEqualTo(newState);
        }
    }

    /**
     * Issue 30, item 1, for a schema apply: killed with its sidecar pending (before or after confirming), the root
     * copied; the copy resolves the apply on its own tables and contract files, the original's files stay byte for
     * byte the same, and the original then resolves it the same way.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"schema_apply.after_rewrites", "schema_apply.after_confirm"})
    void aCopiedRootResolvesItsOwnApplyAndLeavesTheOriginalUntouched(String point) throws Exception {
        Path original = dir.resolve("copied-" + point.replace('.', '_'));
        copy(seeded, original);
        ChildJvm.Finished child = ChildJvm.run(SchemaApplyCrashMain.class, dir.resolve("ctmp-" + point.replace('.', '_')),
                List.of(original.toString()), List.of(Failpoints.ENV + "=" + point + "=exit"), java.time.Duration.ofSeconds(180));
        assertThat(child.exitValue()).as(child.output()).isEqualTo(Failpoints.EXIT_CODE);
        Path copied = dir.resolve("copy-of-" + point.replace('.', '_'));
        dev.omnigraph.engine.crash.CrashHarness.copy(original, copied);
        Map<String, String> untouched = dev.omnigraph.engine.crash.CrashHarness.digests(original);
        boolean forward = rollsForward(point);
        for (Path root : List.of(copied, original)) {
            try (Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_WRITE).block()) {
                assertThat(graph.schemaSource()).isEqualTo(forward ? TARGET : SchemaEvolutionTest.BASE);
                assertThat(state(graph)).isEqualTo(forward ? newState : oldState);
                assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
                assertThat(graph.recoveries().collectList().block()).hasSize(1);
            }
            if (root.equals(copied)) {
                assertThat(dev.omnigraph.engine.crash.CrashHarness.digests(original)).as("the original, after its copy recovered")
                        .isEqualTo(untouched);
            }
        }
    }

    /** Table key → its rows, canonical (edge ids are minted, so left out). */
    static Map<String, List<String>> state(Omnigraph graph) {
        Map<String, List<String>> out = new TreeMap<>();
        for (TableInfo table : graph.snapshot(ReadTarget.main()).block().tables()) {
            out.put(table.tableKey(), GraphTestSupport.rows(graph, table.tableKey()).stream().map(row -> {
                Map<String, Object> sorted = new TreeMap<>(row);
                if (table.tableKey().startsWith("edge:")) sorted.remove("id");
                return sorted.toString();
            }).sorted().toList());
        }
        return out;
    }

    static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> tree = Files.walk(from)) {
            for (Path source : tree.toList()) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) Files.createDirectories(target);
                else if (!source.getFileName().toString().endsWith(".lock")) Files.copy(source, target);
            }
        }
    }
}

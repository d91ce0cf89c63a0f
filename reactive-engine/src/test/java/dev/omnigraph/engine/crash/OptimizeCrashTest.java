package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.internal.HandleInternals;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.testing.ChildJvm;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;

/**
 * Kills a child JVM ({@code Runtime.halt}) at every failpoint of {@code optimize} on a graph whose Person and Note
 * tables are fragmented and partly indexed (each load that gave a table its first rows built its key index), then reopens it read-write here: the rows are exactly the same, the commit
 * list is the one before or the one after (plus nothing else), no sidecar is left, every table's HEAD is its pin,
 * the audit log holds one roll-forward row, and a second optimize finishes the job — every table compact and its
 * indexes covering every fragment (a kill between a compaction and its index builds included).
 */
class OptimizeCrashTest {
    static StorageServices services;
    static Path template;
    static CrashHarness.GraphState before;
    /** The state after the minor compaction case's write (that write committed before its compaction started). */
    static CrashHarness.GraphState written;
    static final String WRITE = "{\"type\":\"Person\",\"data\":{\"name\":\"Fay\",\"age\":5}}";

    @TempDir
    static Path scratch;

    @BeforeAll
    static void seed() throws Exception {
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
        template = scratch.resolve("template");
        Omnigraph seeded = Omnigraph.init(services, template, CrashScenario.SCHEMA).block();
        load(seeded, CrashScenario.SEED);
        for (String line : List.of("{\"type\":\"Person\",\"data\":{\"name\":\"Dee\",\"age\":3}}",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Eve\",\"age\":4}}",
                "{\"type\":\"Note\",\"data\":{\"id\":\"n2\",\"text\":\"two\"}}")) {
            load(seeded, line + "\n");
        }
        before = CrashHarness.state(seeded, services);
        Path copy = scratch.resolve("written");
        CrashHarness.copy(template, copy);
        Omnigraph other = Omnigraph.open(services, copy, OpenMode.READ_WRITE).block();
        HandleInternals.of(other).minorCompactionEvery(0);
        load(other, WRITE + "\n");
        written = CrashHarness.state(other, services);
    }

    static void load(Omnigraph graph, String ndjson) {
        graph.load("main", LoadMode.APPEND, Flux.just(ByteBuffer.wrap(ndjson.getBytes(StandardCharsets.UTF_8))),
                LoadOptions.DEFAULT).block();
    }

    @AfterAll
    static void stop() {
        services.tables().close();
    }

    @ParameterizedTest(name = "optimize killed at {0}")
    @ValueSource(strings = {FailpointCatalog.SIDECAR_WRITE, "optimize.after_plan", "optimize.after_arm",
            "optimize.after_compact:1", "optimize.after_index:1", "optimize.after_index:2",
            "optimize.after_publish",
            "optimize.before_sidecar_delete", FailpointCatalog.SIDECAR_DELETE})
    void aKilledOptimizeLeavesTheSameRowsAndTheNextOpenPublishesWhatLanded(String point, @TempDir Path dir) throws Exception {
        Path root = dir.resolve("graph");
        Omnigraph reopened = killedAndReopened(root, dir.resolve("tmp"), point, List.of(), before);
        boolean armed = !point.equals(FailpointCatalog.SIDECAR_WRITE) && !point.equals("optimize.after_plan");
        List<RecoveryRecord> audit = reopened.recoveries().collectList().block();
        if (armed) {
            assertThat(audit).singleElement().satisfies(r -> assertThat(r.kind()).isEqualTo(RecoveryRecord.Kind.RolledForward));
        } else {
            assertThat(audit).isEmpty();
        }

        reopened.optimize(Optional.empty()).block();
        assertThat(CrashHarness.state(reopened, services).rows()).isEqualTo(before.rows());
        for (var table : reopened.snapshot(ReadTarget.main()).block().tables()) {
            TableRef ref = new TableRef(root.resolve(table.path()).toString(), table.lanceBranch());
            var snapshot = services.tables().open(ref, java.util.OptionalLong.of(table.version())).block();
            // Compact: one fragment, or one per index segment (the load's first fragment carries the segment its index
            // was built with, the rest the delta optimize added; Lance never compacts across segments).
            assertThat(snapshot.fragmentCount()).as(table.tableKey()).isLessThanOrEqualTo(2);
            if (snapshot.rowCount() > 0) {
                assertThat(services.tables().indexNames(ref, table.version()).block()).as(table.tableKey())
                        .contains("og_btree_id");
                assertThat(services.tables().partialIndexes(ref, table.version()).block()).as(table.tableKey()).isEmpty();
            }
        }
    }

    /**
     * A minor compaction (a write's, {@link HandleInternals#minorCompactionEvery}) killed at each of its points: the write
     * it follows stays committed, the compaction is published forward by the next open or not at all.
     */
    @ParameterizedTest(name = "minor compaction killed at {0}")
    @ValueSource(strings = {"optimize.after_plan", "optimize.after_arm", "optimize.after_compact:1",
            "optimize.after_publish", "optimize.before_sidecar_delete"})
    void aKilledMinorCompactionLeavesTheWriteAndTheNextOpenPublishesWhatLanded(String point, @TempDir Path dir)
            throws Exception {
        Omnigraph reopened = killedAndReopened(dir.resolve("graph"), dir.resolve("tmp"), point, List.of(WRITE), written);
        assertThat(reopened.recoveries().collectList().block()).hasSize(point.equals("optimize.after_plan") ? 0 : 1);
    }

    /**
     * Runs {@link OptimizeCrashMain} on a copy of the template at {@code root} with {@code args}, killed at
     * {@code point}, reopens it read-write here and checks what every case shares: the rows of {@code expected}, its
     * commits with or without one {@code optimize} on top, no sidecar left, every table's HEAD at its pin.
     */
    static Omnigraph killedAndReopened(Path root, Path tmp, String point, List<String> args,
                                       CrashHarness.GraphState expected) throws Exception {
        CrashHarness.copy(template, root);
        List<String> childArgs = new ArrayList<>(List.of(root.toString()));
        childArgs.addAll(args);
        ChildJvm.Finished child = ChildJvm.run(OptimizeCrashMain.class, tmp, childArgs, List.of("OMNIGRAPH_FAILPOINTS=" + point + "=exit"), java.time.Duration.ofSeconds(120));
        String output = child.output();
        assertThat(child.exitValue()).as(output).isEqualTo(dev.omnigraph.storage.Failpoints.EXIT_CODE);

        Omnigraph reopened = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
        CrashHarness.GraphState state = CrashHarness.state(reopened, services);
        assertThat(state.rows()).isEqualTo(expected.rows());
        List<String> after = new ArrayList<>(List.of("optimize"));
        after.addAll(expected.userCommits());
        assertThat(state.userCommits()).isIn(expected.userCommits(), after);
        assertThat(HandleInternals.of(reopened).pendingSidecars().collectList().block()).isEmpty();
        for (var table : reopened.snapshot(ReadTarget.main()).block().tables()) {
            TableRef ref = new TableRef(root.resolve(table.path()).toString(), table.lanceBranch());
            assertThat(services.tables().head(ref).block()).as(table.tableKey()).isEqualTo(table.version());
        }
        return reopened;
    }
}

package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.params;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.maintain.MinorCompactions;
import dev.omnigraph.engine.maintain.OptimizeResult;
import dev.omnigraph.engine.maintain.Optimizer;
import dev.omnigraph.engine.maintain.Repair;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.TableHistory;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** {@code optimize} as a tracked maintenance write, and {@code repair} of drift it (or anyone) left unpublished. */
class OptimizeTest extends ConstrainedGraphTest {
    static final String QUERIES = """
            query person($n: String, $a: I32) { insert Person { name: $n, age: $a } }
            query note($t: String) { insert Note { text: $t } }
            query knows($a: String, $b: String) { insert Knows { from: $a, to: $b } }
            query young() { delete Person where age < 20 }
            query people() { match { $p: Person } return { $p.name, $p.age } order { $p.name asc } }
            query notes() { match { $n: Note } return { $n.text } order { $n.text asc } }
            query friends() { match { $a: Person $a knows $b } return { $a.name, $b.name } order { $a.name asc, $b.name asc } }
            query older($x: I32) { match { $p: Person $p.age > $x } return { count($p) as n } }
            """;

    WriteOutcome mutate(String name, Map<String, Object> params) {
        return graph.mutate("main", QUERIES, name, params, WriteOptions.DEFAULT).block(Duration.ofSeconds(60));
    }

    /** Every read query's rows, by query name. */
    Map<String, List<List<Object>>> answers(ReadTarget target) {
        Map<String, List<List<Object>>> out = new TreeMap<>();
        for (String query : List.of("people", "notes", "friends")) {
            out.put(query, graph.query(target, QUERIES, query, Map.of()).flatMapMany(QueryOutput::rows).collectList().block());
        }
        out.put("older", graph.query(target, QUERIES, "older", Map.of("x", 70)).flatMapMany(QueryOutput::rows).collectList().block());
        return out;
    }

    static String letters(int i) {
        StringBuilder name = new StringBuilder("P");
        for (int n = i; n > 0 || name.length() == 1; n /= 26) name.append((char) ('a' + n % 26));
        return name.toString();
    }

    int fragments(String tableKey) {
        TableInfo table = graph.snapshot(ReadTarget.main()).block().table(tableKey).orElseThrow();
        return graph.services().tables().open(ref(table), OptionalLong.of(table.version())).block().fragmentCount();
    }

    TableRef ref(TableInfo table) {
        return new TableRef(graph.root().resolve(table.path()).toString(), table.lanceBranch());
    }

    /**
     * Single-row writes before the optimize: 200 by default (each is a full tracked write, ~0.3 s on a loaded
     * 2-core machine); {@code -Doptimize.writes=1000} runs the thousand.
     */
    static final int WRITES = Integer.getInteger("optimize.writes", 200);

    @Test
    @org.junit.jupiter.api.Timeout(value = 20, unit = java.util.concurrent.TimeUnit.MINUTES)
    void manySingleRowWritesCompactToFewFragmentsAndEveryQueryAndTimeTravelAnswersTheSame() {
        graph.minorCompactionEvery(0); // optimize alone, from one fragment per write (minor compactions: tests below)
        String midpoint = null;
        for (int i = 0; i < WRITES; i++) {
            WriteOutcome written = switch (i % 4) {
                case 0, 1 -> mutate("person", params("n", letters(i), "a", i % 100));
                case 2 -> mutate("note", params("t", "note " + i));
                default -> mutate("knows", params("a", letters(i - 3), "b", letters(i - 2)));
            };
            if (i == WRITES / 2 - 1) midpoint = written.commit().orElseThrow().id();
        }
        mutate("young", Map.of()); // deletion vectors on most Person fragments
        assertThat(fragments("node:Person")).isGreaterThan(WRITES / 3);
        Map<String, List<List<Object>>> before = answers(ReadTarget.main());
        Map<String, List<List<Object>>> atMidpoint = answers(ReadTarget.commit(midpoint));

        OptimizeResult optimized = graph.optimize(Optional.empty()).block(Duration.ofSeconds(120));

        assertThat(optimized.commitId()).isPresent();
        assertThat(optimized.compactedTables()).containsExactlyInAnyOrder("node:Person", "node:Note", "edge:Knows");
        assertThat(optimized.skipped()).isEmpty();
        for (String table : List.of("node:Person", "node:Note", "edge:Knows")) {
            assertThat(fragments(table)).as(table).isLessThanOrEqualTo(2);
        }
        assertThat(answers(ReadTarget.main())).isEqualTo(before);
        assertThat(answers(ReadTarget.commit(midpoint))).isEqualTo(atMidpoint);
        assertThat(graph.commits("main").blockFirst().operation()).isEqualTo("optimize");
        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();

        OptimizeResult again = graph.optimize(Optional.empty()).block();
        assertThat(again.commitId()).as("nothing left to compact: no commit").isEmpty();
        assertThat(again.compacted()).isEmpty();
        assertThat(graph.commits("main").blockFirst().id()).isEqualTo(optimized.commitId().get());
        assertThat(mutate("note", params("t", "after")).commit()).isPresent();
    }

    void someWrites() {
        for (int i = 0; i < 6; i++) {
            mutate("person", params("n", letters(i), "a", 30 + i));
        }
        mutate("note", params("t", "zero")); // the first write builds the key index over its own fragment
        mutate("note", params("t", "one"));
        mutate("note", params("t", "two"));
    }

    @Test
    void anOptimizeFailingAfterItsFirstCompactionPublishesWhatItCompactedThroughRecovery() {
        someWrites();
        Map<String, List<List<Object>>> before = answers(ReadTarget.main());
        graph.failpoints().arm("optimize.after_compact:1", new Failpoints.Action.Error());
        assertThatThrownBy(() -> graph.optimize(Optional.empty()).block()).hasMessageContaining("optimize.after_compact:1");
        graph.failpoints().disarm("optimize.after_compact:1");

        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
        assertThat(graph.recoveries().collectList().block()).singleElement()
                .satisfies(record -> assertThat(record.kind()).isEqualTo(RecoveryRecord.Kind.RolledForward));
        assertThat(answers(ReadTarget.main())).isEqualTo(before);
        // The first table (sorted) was compacted and published: its two unindexed fragments merged, the indexed first
        // one left apart (Lance never puts fragments an index covers and fragments it does not in one rewrite group).
        assertThat(fragments("node:Note")).isEqualTo(2);
        OptimizeResult rest = graph.optimize(Optional.empty()).block();
        assertThat(rest.compactedTables()).containsExactly("node:Person");
        assertThat(mutate("note", params("t", "three")).commit()).isPresent();
    }

    @Test
    void optimizeRefusesWhileRecoveryIsPending() {
        someWrites();
        graph.failpoints().arm("mutation.after_commit:1", new Failpoints.Action.Error());
        graph.failpoints().arm("recovery.before_plan_write", new Failpoints.Action.Error());
        assertThatThrownBy(() -> mutate("note", params("t", "stuck"))).isInstanceOf(RecoveryRequired.class);
        graph.failpoints().disarm("mutation.after_commit:1");
        graph.failpoints().disarm("recovery.before_plan_write");
        Map<String, Long> pins = GraphTestSupport.versions(graph);

        assertThatThrownBy(() -> graph.optimize(Optional.empty()).block()).isInstanceOf(RecoveryRequired.class)
                .hasMessageContaining("optimize refused").hasMessageContaining("omnigraph recovery run");
        assertThat(GraphTestSupport.versions(graph)).isEqualTo(pins);
    }

    @Test
    void repairPublishesVerifiedCompactionDriftAndRefusesOtherDriftWithoutForce() {
        someWrites();
        Map<String, List<List<Object>>> before = answers(ReadTarget.main());
        TableInfo person = graph.snapshot(ReadTarget.main()).block().table("node:Person").orElseThrow();
        // Compaction straight through storage, never published: drift no sidecar covers.
        long compacted = graph.services().tables().compactFragments(ref(person)).block().orElseThrow();

        assertThatThrownBy(() -> mutate("person", params("n", "Late", "a", 1))).isInstanceOf(Conflict.class)
                .hasMessageContaining("omnigraph repair <root>");
        OptimizeResult optimized = graph.optimize(Optional.empty()).block();
        assertThat(optimized.skipped()).singleElement().satisfies(skip -> {
            assertThat(skip.tableKey()).isEqualTo("node:Person");
            assertThat(skip.head()).isEqualTo(compacted);
        });
        assertThat(optimized.compactedTables()).containsExactly("node:Note");

        assertThat(graph.repair(false, false).block()).singleElement().satisfies(drift -> {
            assertThat(drift.kind()).isEqualTo(Repair.Kind.VERIFIED_MAINTENANCE);
            assertThat(drift.operations()).allMatch(TableHistory::isMaintenance).endsWith("Rewrite");
            assertThat(drift.publishedNow()).isFalse();
        });
        assertThat(graph.repair(true, false).block()).singleElement()
                .satisfies(drift -> assertThat(drift.publishedNow()).isTrue());
        assertThat(graph.snapshot(ReadTarget.main()).block().table("node:Person").orElseThrow().version()).isEqualTo(compacted);
        assertThat(answers(ReadTarget.main())).isEqualTo(before);
        assertThat(graph.repair(false, false).block()).isEmpty();

        // A foreign append is not maintenance: --confirm leaves it, --force --confirm publishes it.
        TableInfo pinned = graph.snapshot(ReadTarget.main()).block().table("node:Person").orElseThrow();
        var base = graph.services().tables().open(ref(pinned), OptionalLong.of(pinned.version())).block();
        graph.services().tables().commitStaged(graph.services().tables()
                .stageAppend(base, List.of(Map.of("id", "Ghost", "name", "Ghost")), Map.of()).block()).block();
        assertThat(graph.repair(true, false).block()).singleElement().satisfies(drift -> {
            assertThat(drift.kind()).isEqualTo(Repair.Kind.UNVERIFIED);
            assertThat(drift.publishedNow()).isFalse();
        });
        assertThat(graph.repair(true, true).block()).singleElement()
                .satisfies(drift -> assertThat(drift.publishedNow()).isTrue());
        assertThat(mutate("person", params("n", "Late", "a", 1)).commit()).isPresent();
    }

    @Test
    void anOptimizeSidecarWhoseRangeHoldsAForeignVersionIsRefusedAndKept() {
        someWrites();
        TableInfo note = graph.snapshot(ReadTarget.main()).block().table("node:Note").orElseThrow();
        // An interrupted optimize that planned one task on Note (range pin+1 .. pin+2)…
        graph.sidecars().write(new dev.omnigraph.recovery.Sidecar(dev.omnigraph.recovery.Sidecar.SCHEMA_VERSION,
                "01OPTIMIZEFOREIGN", "0", null, "omnigraph:optimize", dev.omnigraph.recovery.Sidecar.WriterKind.Optimize,
                List.of(new dev.omnigraph.recovery.Sidecar.TablePin(new dev.omnigraph.recovery.Sidecar.Identity(
                        EngineInternals.pins(graph).get("node:Note").stableTableId(),
                        EngineInternals.pins(graph).get("node:Note").incarnationId()),
                        "node:Note", note.path(), note.version(), note.version() + 2, null, null)), null)).block();
        // …but the version past the pin is somebody's append, not compaction.
        var base = graph.services().tables().open(ref(note), OptionalLong.of(note.version())).block();
        graph.services().tables().commitStaged(graph.services().tables()
                .stageAppend(base, List.of(Map.of("id", "x", "text", "foreign")), Map.of()).block()).block();

        assertThatThrownBy(() -> Omnigraph.open(services, graph.root(), OpenMode.READ_WRITE).block())
                .isInstanceOf(RecoveryRequired.class).hasMessageContaining("01OPTIMIZEFOREIGN")
                .hasMessageContaining("not compaction").hasMessageContaining("[Append]");
        assertThat(graph.pendingSidecars().collectList().block()).hasSize(1);
        assertThat(graph.snapshot(ReadTarget.main()).block().table("node:Note").orElseThrow().version())
                .isEqualTo(note.version());
    }

    /**
     * Writes of a handle that turns them on bound a table's small fragments between optimizes: every n-th
     * commit to a table is followed by a minor compaction (a tracked optimize of that table, no index work),
     * published as its own commit; every query and every earlier commit answers the same.
     */
    @Test
    void withMinorCompactionsOnEverySixtyFourthWriteToATableCompactsItsSmallFragmentsAndAnswersStayTheSame() {
        graph.minorCompactionEvery(MinorCompactions.EVERY_WRITES);
        int writes = MinorCompactions.EVERY_WRITES * 2 + 10;
        String early = null;
        for (int i = 0; i < writes; i++) {
            String commit = mutate("note", params("t", "note " + i)).commit().orElseThrow().id();
            if (i == 10) early = commit;
        }
        Map<String, List<List<Object>>> atEarly = answers(ReadTarget.commit(early));
        assertThat(atEarly.get("notes")).hasSize(11);

        assertThat(fragments("node:Note")).as("two minor compactions, then 10 single-row fragments")
                .isLessThanOrEqualTo(12);
        List<GraphCommit> minors = graph.commits("main").collectList().block().stream()
                .filter(commit -> commit.actorId().equals(java.util.Optional.of(Optimizer.MINOR_ACTOR))).toList();
        assertThat(minors).hasSize(2).allSatisfy(commit -> assertThat(commit.operation()).isEqualTo("optimize"));
        assertThat(answers(ReadTarget.main()).get("notes")).hasSize(writes);
        assertThat(answers(ReadTarget.commit(early))).isEqualTo(atEarly);
        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
        assertThat(graph.gates().allIdle()).isTrue();
    }

    @Test
    void noMinorCompactionByDefault() {
        for (int i = 0; i < MinorCompactions.EVERY_WRITES + 1; i++) {
            mutate("note", params("t", "note " + i));
        }
        assertThat(fragments("node:Note")).isEqualTo(MinorCompactions.EVERY_WRITES + 1);
        assertThat(graph.commits("main").collectList().block())
                .noneSatisfy(commit -> assertThat(commit.operation()).isEqualTo("optimize"));
    }

    /**
     * A cancel cannot stop a Lance compaction half-way, so optimize runs detached: its gates stay held until the
     * compaction has published, and a write queued meanwhile lands after it (before, the cancel released the gates
     * at once while the compaction went on).
     */
    @Test
    void aCancelledOptimizeRunsToItsEndAndHoldsItsGatesUntilThen() {
        for (int i = 0; i < 5; i++) {
            mutate("note", params("t", "note " + i));
        }
        Failpoints.Parked parked = graph.failpoints().park("optimize.after_arm");
        reactor.core.Disposable optimize = graph.optimize(Optional.empty()).subscribe();
        parked.reached().block();
        optimize.dispose();
        assertThat(graph.gates().allIdle()).as("held while the compaction runs").isFalse();
        graph.failpoints().disarm("optimize.after_arm");
        parked.release();

        mutate("note", params("t", "after"));
        assertThat(fragments("node:Note")).as("the indexed first fragment, the compacted four, the new one").isEqualTo(3);
        assertThat(graph.commits("main").collectList().block())
                .anySatisfy(commit -> assertThat(commit.operation()).isEqualTo("optimize"));
        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
        assertThat(graph.gates().allIdle()).isTrue();
    }
}

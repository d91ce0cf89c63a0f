package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.merge.MergeOutcome;
import dev.omnigraph.engine.merge.MergeResult;
import dev.omnigraph.storage.StorageCallCounter;
import dev.omnigraph.engine.write.WriteLimits;
import dev.omnigraph.storage.error.MergeConflicts;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Pointer-only adopt: a type the target has not touched since the base, whose source state is another version of
 * the ref the target reads through (a branch still inheriting main's table), is merged by moving the target's pin.
 * No row is written, no fork is made, and the delta still validates against the target.
 */
class MergePointerTest extends MergeFixture {
    private final StorageCallCounter counter = new StorageCallCounter();

    @Override
    StorageServices newServices() {
        return EngineFixture.countingServices(counter);
    }

    @BeforeEach
    void seed() {
        load("main", LoadMode.APPEND, "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}", person("Ann", 1),
                person("Bea", 2), person("Cid", 3));
        branch("g");
    }

    @Test
    void mainIntoAnUntouchedBranchMovesThePinAndWritesNoRow() {
        load("main", LoadMode.MERGE, person("Ann", 10), person("Dan", 4), job("w1", "Ann", "Acme", "2020-01-01"));
        run("main", "drop", "Bea");
        String before = head("g");
        Map<String, Long> mainTables = GraphTestSupport.versions(graph);
        var calls = counter.snapshot();

        MergeResult merged = merge("main", "g");

        Map<String, Long> delta = StorageCallCounter.delta(calls, counter.snapshot());
        assertThat(merged.outcome()).isEqualTo(MergeOutcome.FAST_FORWARD);
        assertThat(merged.affectedNodes()).isEqualTo(3); // Ann updated, Dan inserted, Bea deleted
        assertThat(merged.affectedEdges()).isEqualTo(1);
        // No data written: one staged transaction and one commit, both the manifest's (a copied delta would
        // stage and commit Person and WorksAt on forks of g as well), no restore; no fork (g still reads main's).
        assertThat(delta).as("storage calls of the merge: %s", delta).doesNotContainKey("restore")
                .containsEntry("stage", 1L).containsEntry("commit", 1L);
        assertThat(mainTables(GraphTestSupport.versions(graph))).isEqualTo(mainTables(mainTables));
        GraphSnapshot onG = graph.snapshot(ReadTarget.branch("g")).block();
        GraphSnapshot onMain = graph.snapshot(ReadTarget.main()).block();
        for (String key : new String[] {"node:Person", "edge:WorksAt"}) {
            assertThat(onG.table(key)).isEqualTo(onMain.table(key));
            assertThat(onG.table(key).orElseThrow().lanceBranch()).isEmpty();
        }
        assertThat(column("g", "node:Person", "age")).isEqualTo(column("main", "node:Person", "age"));
        // Time travel: g before the merge; the merge commit's parents.
        assertThat(GraphTestSupport.rows(graph, ReadTarget.commit(before), "node:Person")).extracting(row -> row.get("id"))
                .containsExactlyInAnyOrder("Ann", "Bea", "Cid");
        assertThat(parents(merged.commit().orElseThrow().id())).containsExactly(before, head("main"));
        // g writes on after the switch: its first write forks the switched version; main is untouched.
        Map<String, Object> mainAges = column("main", "node:Person", "age");
        load("g", LoadMode.MERGE, person("Cid", 30));
        assertThat(column("g", "node:Person", "age")).containsEntry("Cid", 30).containsEntry("Dan", 4).doesNotContainKey("Bea");
        assertThat(column("main", "node:Person", "age")).isEqualTo(mainAges);
        assertThat(merge("main", "g").outcome()).isEqualTo(MergeOutcome.ALREADY_UP_TO_DATE);
    }

    @Test
    void aPointerSwitchAndARowMergeArePublishedAsOneCommit() {
        load("g", LoadMode.MERGE, person("Cid", 30)); // g owns a Person fork: three-way there
        load("main", LoadMode.MERGE, person("Ann", 10), job("w1", "Ann", "Acme", "2020-01-01"));
        String mainWorksAtBefore = String.valueOf(graph.snapshot(ReadTarget.main()).block().table("edge:WorksAt"));

        MergeResult merged = merge("main", "g");

        assertThat(merged.outcome()).isEqualTo(MergeOutcome.MERGED);
        GraphSnapshot onG = graph.snapshot(ReadTarget.branch("g")).block();
        assertThat(onG.table("node:Person").orElseThrow().lanceBranch()).contains("g");
        assertThat(onG.table("edge:WorksAt")).isEqualTo(graph.snapshot(ReadTarget.main()).block().table("edge:WorksAt"));
        assertThat(String.valueOf(graph.snapshot(ReadTarget.main()).block().table("edge:WorksAt"))).isEqualTo(mainWorksAtBefore);
        assertThat(column("g", "node:Person", "age")).containsEntry("Ann", 10).containsEntry("Cid", 30);
        assertThat(column("g", "edge:WorksAt", "src")).containsEntry("w1", "Ann");
        assertThat(pendingSidecars()).isZero();
    }

    @Test
    void aPointerAdoptedTypeIsStillValidatedAgainstTheTarget() {
        graph.mutate("g", QUERIES, "dropCompany", Map.of("name", "Acme"), WriteOptions.DEFAULT).block();
        load("main", LoadMode.MERGE, job("w1", "Ann", "Acme", "2020-01-01"));
        String before = head("g");

        assertThatThrownBy(() -> merge("main", "g")).isInstanceOfSatisfying(MergeConflicts.class, conflicts ->
                assertThat(conflicts.conflicts()).anySatisfy(c -> assertThat(c.kind()).isEqualTo(MergeConflicts.Kind.ORPHAN_EDGE)));
        assertThat(head("g")).isEqualTo(before);
    }

    @Test
    void aFastForwardByPointerHoldsNothingWhileAThreeWayPointerAdoptIsBoundByWhatItValidates() {
        load("main", LoadMode.MERGE, person("Ann", 10), person("Dan", 4), person("Eve", 5));
        // Bounds no delta fits: 2 entities per commit, 40 estimated bytes of validated changes.
        graph.withLimits(new WriteLimits(2, 40));
        var calls = counter.snapshot();

        MergeResult fastForward = merge("main", "g");

        // The merged image is main's own: nothing validated, nothing held, so neither bound applies; the delta is
        // only counted, and nothing but the manifest is staged and committed.
        assertThat(fastForward.outcome()).isEqualTo(MergeOutcome.FAST_FORWARD);
        assertThat(fastForward.affectedNodes()).isEqualTo(3);
        assertThat(StorageCallCounter.delta(calls, counter.snapshot())).containsEntry("stage", 1L).containsEntry("commit", 1L);
        assertThat(column("g", "node:Person", "age")).isEqualTo(column("main", "node:Person", "age"));

        // Three-way (g moved too, on another type): the adopted Person delta is validated, within the byte bound.
        graph.withLimits(WriteLimits.DEFAULT);
        load("g", LoadMode.MERGE, "{\"type\":\"Company\",\"data\":{\"name\":\"Initech\"}}");
        load("main", LoadMode.MERGE, person("Fay", 6), person("Gus", 7), person("Hal", 8));
        String before = head("g");
        graph.withLimits(new WriteLimits(WriteLimits.DEFAULT.maxEntitiesPerTable(), 40));
        assertThatThrownBy(() -> merge("main", "g")).isInstanceOf(ResourceLimitExceeded.class);
        assertThat(head("g")).isEqualTo(before);
        // ...but nothing is written to Person, so the rows-per-commit bound of a written table does not apply.
        graph.withLimits(new WriteLimits(2, WriteLimits.DEFAULT.maxArrowBytesPerTable()));

        MergeResult merged = merge("main", "g");

        assertThat(merged.outcome()).isEqualTo(MergeOutcome.MERGED);
        assertThat(merged.affectedNodes()).isEqualTo(3);
        assertThat(column("g", "node:Person", "age")).isEqualTo(column("main", "node:Person", "age"));
    }

    /** main's table versions and heads: a pointer switch on g changes none of them (only the manifest moves). */
    private static Map<String, Long> mainTables(Map<String, Long> before) {
        Map<String, Long> out = new java.util.TreeMap<>(before);
        out.remove("__manifest");
        return out;
    }

    private long pendingSidecars() {
        return graph.pendingSidecars().count().block();
    }
}

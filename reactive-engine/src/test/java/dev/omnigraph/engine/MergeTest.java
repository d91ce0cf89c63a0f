package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.merge.MergeOutcome;
import dev.omnigraph.engine.merge.MergeResult;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.MergeConflicts;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The three-way merge's row rules, outcomes and lineage on real Lance datasets. */
class MergeTest extends MergeFixture {
    /** Row-rule scenarios, one id each: S/T = source/target changed, B = both. */
    static final List<String> NAMES = List.of("Sa", "Ta", "Agree", "Sdel", "Tdel", "Bdel");

    @BeforeEach
    void seed() {
        load("main", LoadMode.APPEND, "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}",
                "{\"type\":\"Company\",\"data\":{\"name\":\"Beta\"}}");
        for (String name : NAMES) {
            load("main", LoadMode.APPEND, person(name, 1), person("W" + name.toLowerCase(), 1),
                    job("w-" + name.toLowerCase(), "W" + name.toLowerCase(), "Acme", "2020-01-01"));
        }
        load("main", LoadMode.APPEND, person("Wsins", 1), person("Wtins", 1), person("Wbins", 1));
        branch("f");
    }

    @Test
    void everyCleanRowRuleOnNodesAndEdges() {
        // Source side (branch f).
        load("f", LoadMode.MERGE, person("Sa", 10), person("Agree", 30), person("Sins", 5), person("Bins", 7),
                job("w-sa", "Wsa", "Acme", "2021-01-01"), job("w-agree", "Wagree", "Beta", "2022-02-02"),
                job("w-sins", "Wsins", "Acme", "2023-03-03"), job("w-bins", "Wbins", "Beta", "2024-04-04"));
        run("f", "drop", "Sdel");
        run("f", "drop", "Bdel");
        run("f", "quitJob", "Wsdel");
        run("f", "quitJob", "Wbdel");
        // Target side (main).
        load("main", LoadMode.MERGE, person("Ta", 20), person("Agree", 30), person("Tins", 6), person("Bins", 7),
                job("w-ta", "Wta", "Beta", "2021-05-05"), job("w-agree", "Wagree", "Beta", "2022-02-02"),
                job("w-tins", "Wtins", "Beta", "2023-06-06"), job("w-bins", "Wbins", "Beta", "2024-04-04"));
        run("main", "drop", "Tdel");
        run("main", "drop", "Bdel");
        run("main", "quitJob", "Wtdel");
        run("main", "quitJob", "Wbdel");
        String mainHead = head("main");
        String sourceHead = head("f");
        Map<String, Object> sourceBefore = column("f", "node:Person", "age");

        MergeResult merged = merge("f", "main");

        assertThat(merged.outcome()).isEqualTo(MergeOutcome.MERGED);
        assertThat(merged.commit()).isPresent();
        assertThat(parents(merged.commit().get().id())).containsExactly(mainHead, sourceHead);
        Map<String, Object> ages = column("main", "node:Person", "age");
        assertThat(ages).containsEntry("Sa", 10).containsEntry("Ta", 20).containsEntry("Agree", 30)
                .containsEntry("Sins", 5).containsEntry("Tins", 6).containsEntry("Bins", 7)
                .doesNotContainKeys("Sdel", "Tdel", "Bdel");
        Map<String, Object> since = column("main", "edge:WorksAt", "since");
        assertThat(since).containsEntry("w-sa", LocalDate.parse("2021-01-01"))
                .containsEntry("w-ta", LocalDate.parse("2021-05-05"))
                .containsEntry("w-agree", LocalDate.parse("2022-02-02"))
                .containsEntry("w-sins", LocalDate.parse("2023-03-03"))
                .containsEntry("w-tins", LocalDate.parse("2023-06-06"))
                .containsEntry("w-bins", LocalDate.parse("2024-04-04"))
                .doesNotContainKeys("w-sdel", "w-tdel", "w-bdel");
        // The source is never modified; the same pair again is up to date.
        assertThat(column("f", "node:Person", "age")).isEqualTo(sourceBefore);
        assertThat(head("f")).isEqualTo(sourceHead);
        assertThat(merge("f", "main").outcome()).isEqualTo(MergeOutcome.ALREADY_UP_TO_DATE);
        assertThat(head("main")).isEqualTo(merged.commit().get().id());
        // Time travel: the target as of its commit before the merge.
        assertThat(GraphTestSupport.rows(graph, ReadTarget.commit(mainHead), "node:Person"))
                .extracting(row -> row.get("id")).contains("Sdel").doesNotContain("Sins");
    }

    @Test
    void divergentUpdateOnANode() {
        load("f", LoadMode.MERGE, person("Sa", 10));
        load("main", LoadMode.MERGE, person("Sa", 11));
        assertConflicts(conflict("node", "Person", "Sa", MergeConflicts.Kind.DIVERGENT_UPDATE));
    }

    @Test
    void divergentInsertOnANode() {
        load("f", LoadMode.APPEND, person("New", 10));
        load("main", LoadMode.APPEND, person("New", 11));
        assertConflicts(conflict("node", "Person", "New", MergeConflicts.Kind.DIVERGENT_INSERT));
    }

    @Test
    void deleteOnOneSideUpdateOnTheOtherOnNodes() {
        run("f", "drop", "Sa");
        load("main", LoadMode.MERGE, person("Sa", 11));
        load("f", LoadMode.MERGE, person("Ta", 12));
        run("main", "drop", "Ta");
        assertConflicts(conflict("node", "Person", "Sa", MergeConflicts.Kind.DELETE_VS_UPDATE),
                conflict("node", "Person", "Ta", MergeConflicts.Kind.DELETE_VS_UPDATE));
    }

    @Test
    void edgeConflictsOfEveryKindAreCollectedWithNodeConflicts() {
        load("f", LoadMode.MERGE, job("w-sa", "Wsa", "Acme", "2021-01-01"), job("w-new", "Wsins", "Acme", "2021-01-01"),
                job("w-ta", "Wta", "Beta", "2021-01-01"), person("Agree", 3));
        load("main", LoadMode.MERGE, job("w-sa", "Wsa", "Beta", "2021-01-01"), job("w-new", "Wsins", "Beta", "2021-01-01"),
                person("Agree", 4));
        run("main", "quitJob", "Wta");
        assertConflicts(conflict("edge", "WorksAt", "w-new", MergeConflicts.Kind.DIVERGENT_INSERT),
                conflict("edge", "WorksAt", "w-sa", MergeConflicts.Kind.DIVERGENT_UPDATE),
                conflict("edge", "WorksAt", "w-ta", MergeConflicts.Kind.DELETE_VS_UPDATE),
                conflict("node", "Person", "Agree", MergeConflicts.Kind.DIVERGENT_UPDATE));
    }

    @Test
    void fastForwardStillPublishesAMergeCommitOnTheTarget() {
        load("f", LoadMode.MERGE, person("Sa", 10), person("Sins", 5));
        run("f", "drop", "Sdel");
        String mainHead = head("main");
        String sourceHead = head("f");

        MergeResult merged = merge("f", "main");

        assertThat(merged.outcome()).isEqualTo(MergeOutcome.FAST_FORWARD);
        assertThat(parents(merged.commit().orElseThrow().id())).containsExactly(mainHead, sourceHead);
        assertThat(column("main", "node:Person", "age")).isEqualTo(column("f", "node:Person", "age"));
        assertThat(merge("f", "main").outcome()).isEqualTo(MergeOutcome.ALREADY_UP_TO_DATE);
    }

    @Test
    void aMergeWhoseSidesNetOutStillRecordsItsMergedParent() {
        load("f", LoadMode.MERGE, person("Sa", 10));
        load("main", LoadMode.MERGE, person("Sa", 10));
        Map<String, Long> tablesBefore = GraphTestSupport.versions(graph);
        String mainHead = head("main");
        String sourceHead = head("f");

        MergeResult merged = merge("f", "main");

        assertThat(merged.outcome()).isEqualTo(MergeOutcome.MERGED);
        assertThat(parents(merged.commit().orElseThrow().id())).containsExactly(mainHead, sourceHead);
        Map<String, Long> tablesAfter = GraphTestSupport.versions(graph);
        tablesAfter.remove("__manifest");
        tablesBefore.remove("__manifest");
        assertThat(tablesAfter).isEqualTo(tablesBefore);
        assertThat(merge("f", "main").outcome()).isEqualTo(MergeOutcome.ALREADY_UP_TO_DATE);
    }

    @Test
    void theSourceHeadCapturedAtTheStartIsWhatIsMergedWhateverTheSourceDoesMeanwhile() {
        load("f", LoadMode.MERGE, person("Sa", 10));
        String captured = head("f");
        Failpoints.Parked parked = graph.failpoints().park("branch_merge.after_prepare");
        var merging = graph.mergeBranch("f", "main", false, Optional.empty()).toFuture();
        parked.reached().block();
        load("f", LoadMode.MERGE, person("Ta", 99)); // the source moves on while the merge is planned
        parked.release();
        MergeResult merged = merging.join();
        graph.failpoints().disarm("branch_merge.after_prepare");

        assertThat(merged.outcome()).isEqualTo(MergeOutcome.FAST_FORWARD);
        assertThat(parents(merged.commit().orElseThrow().id())).last().isEqualTo(captured);
        assertThat(column("main", "node:Person", "age")).containsEntry("Sa", 10).containsEntry("Ta", 1);
        // The later source commit is the next merge's (base: the captured head).
        assertThat(merge("f", "main").outcome()).isEqualTo(MergeOutcome.MERGED);
        assertThat(column("main", "node:Person", "age")).containsEntry("Ta", 99);
    }

    @Test
    void aBranchWithoutCommitsIsAlreadyUpToDateAndNothingIsPublished() {
        String mainHead = head("main");
        MergeResult result = merge("f", "main");
        assertThat(result.outcome()).isEqualTo(MergeOutcome.ALREADY_UP_TO_DATE);
        assertThat(result.commit()).isEmpty();
        assertThat(head("main")).isEqualTo(mainHead);
    }

    @Test
    void mergesIntoANonMainBranchLeaveMainAlone() {
        branch("g");
        load("f", LoadMode.MERGE, person("Sa", 10));
        load("g", LoadMode.MERGE, person("Ta", 20));
        Map<String, Object> mainBefore = column("main", "node:Person", "age");

        MergeResult merged = merge("f", "g");

        assertThat(merged.outcome()).isEqualTo(MergeOutcome.MERGED);
        assertThat(column("g", "node:Person", "age")).containsEntry("Sa", 10).containsEntry("Ta", 20);
        assertThat(column("main", "node:Person", "age")).isEqualTo(mainBefore);
        // The other way round: g now holds everything f has, so f gains g's change.
        assertThat(merge("g", "f").outcome()).isEqualTo(MergeOutcome.FAST_FORWARD);
        assertThat(column("f", "node:Person", "age")).containsEntry("Ta", 20).containsEntry("Sa", 10);
    }

    @Test
    void aBranchCreatedFromACommitMergesAgainstThatCommit() {
        String old = head("main");
        load("main", LoadMode.MERGE, person("Ta", 20));
        graph.createBranch("old", Optional.of(old)).block();
        load("old", LoadMode.MERGE, person("Sa", 10));

        MergeResult merged = merge("old", "main");

        assertThat(merged.outcome()).isEqualTo(MergeOutcome.MERGED);
        assertThat(column("main", "node:Person", "age")).containsEntry("Sa", 10).containsEntry("Ta", 20);
    }

    @Test
    void aBranchCannotMergeIntoItselfAndAMissingSourceIsNotFound() {
        assertThatThrownBy(() -> merge("main", "main")).isInstanceOf(BadRequest.class);
        assertThatThrownBy(() -> merge("nope", "main")).isInstanceOf(dev.omnigraph.storage.error.NotFound.class);
    }

    static MergeConflicts.Conflict conflict(String entityKind, String type, String id, MergeConflicts.Kind kind) {
        return new MergeConflicts.Conflict(entityKind, type, Optional.of(id), kind, "");
    }

    /** The merge fails with exactly these conflicts (messages aside) and publishes nothing. */
    void assertConflicts(MergeConflicts.Conflict... expected) {
        Map<String, Long> before = GraphTestSupport.versions(graph);
        assertThatThrownBy(() -> merge("f", "main")).isInstanceOfSatisfying(MergeConflicts.class, thrown ->
                assertThat(thrown.conflicts()).usingRecursiveFieldByFieldElementComparatorIgnoringFields("message")
                        .containsExactlyInAnyOrder(expected));
        assertThat(GraphTestSupport.versions(graph)).isEqualTo(before);
    }
}

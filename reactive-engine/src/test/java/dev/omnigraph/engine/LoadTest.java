package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static dev.omnigraph.engine.GraphTestSupport.rows;
import static dev.omnigraph.engine.GraphTestSupport.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.write.WriteLimits;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.error.KeyConflict;
import dev.omnigraph.storage.error.ParseError;
import dev.omnigraph.storage.error.PreconditionFailed;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import dev.omnigraph.storage.error.ValidationError;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

class LoadTest extends ConstrainedGraphTest {

    WriteOutcome load(LoadMode mode, String... lines) {
        return graph.load("main", mode, ndjson(lines), LoadOptions.DEFAULT).block();
    }

    static final String[] PEOPLE = {
            "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":36,\"email\":\"ada@x\",\"status\":\"active\"}}",
            "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\",\"age\":41}}",
            "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}",
            "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Bob\"}",
            "{\"edge\":\"WorksAt\",\"from\":\"Ada\",\"to\":\"Acme\",\"data\":{\"since\":\"2020-01-02\"}}"};

    @Test
    void appendLandsOneCommitWithEdgesReferencingNodesOfTheSameFile() {
        WriteOutcome outcome = load(LoadMode.APPEND, PEOPLE);
        assertThat(outcome.affectedNodes()).isEqualTo(3);
        assertThat(outcome.affectedEdges()).isEqualTo(2);
        GraphCommit commit = outcome.commit().orElseThrow();
        assertThat(commit.operation()).isEqualTo("load:append");
        assertThat(commit.deltas()).hasSize(4);
        assertThat(graph.snapshot(ReadTarget.main()).block().graphCommitId()).contains(commit.id());
        assertThat(rows(graph, "node:Person")).extracting(row -> row.get("id")).containsExactly("Ada", "Bob");
        assertThat(rows(graph, "node:Person").get(0)).containsEntry("age", 36).containsEntry("status", "active");
        Map<String, Object> worksAt = rows(graph, "edge:WorksAt").get(0);
        assertThat(worksAt).containsEntry("src", "Ada").containsEntry("dst", "Acme")
                .containsEntry("since", LocalDate.of(2020, 1, 2));
        assertThat(graph.sidecars().list().collectList().block()).isEmpty();
        assertThat(graph.snapshot(ReadTarget.main()).block().table("node:Person").orElseThrow().rowCount()).isEqualTo(2);
    }

    @Test
    void appendRefusesExistingAndRepeatedIdsAndChangesNothing() {
        load(LoadMode.APPEND, PEOPLE);
        Map<String, Long> before = versions(graph);
        assertThatThrownBy(() -> load(LoadMode.APPEND, "{\"type\":\"Person\",\"data\":{\"name\":\"Cy\"}}",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\"}}"))
                .isInstanceOfSatisfying(KeyConflict.class, e -> assertThat(e.ids()).containsExactly("Bob"));
        assertThatThrownBy(() -> load(LoadMode.APPEND, "{\"type\":\"Note\",\"data\":{\"id\":\"n1\",\"text\":\"a\"}}",
                "{\"type\":\"Note\",\"data\":{\"id\":\"n1\",\"text\":\"b\"}}"))
                .isInstanceOfSatisfying(KeyConflict.class, e -> assertThat(e.ids()).containsExactly("n1"));
        assertThat(versions(graph)).isEqualTo(before);
    }

    @Test
    void mergeUpsertsByKey() { // a key repeated in one input is refused: UpstreamCompatTest
        load(LoadMode.APPEND, PEOPLE);
        WriteOutcome merged = load(LoadMode.MERGE,
                "{\"type\":\"Person\",\"data\":{\"name\":\"Cy\",\"age\":20}}",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\",\"age\":43}}");
        assertThat(merged.commit()).isPresent();
        List<Map<String, Object>> people = rows(graph, "node:Person");
        assertThat(people).extracting(row -> row.get("id")).containsExactly("Ada", "Bob", "Cy");
        assertThat(people.get(1)).containsEntry("age", 43);
        assertThat(people.get(0)).containsEntry("email", "ada@x");
    }

    @Test
    void overwriteReplacesTouchedTypesAndCanEmptyANamedType() {
        load(LoadMode.APPEND, PEOPLE);
        load(LoadMode.APPEND, "{\"type\":\"Note\",\"data\":{\"text\":\"one\"}}");
        WriteOutcome replaced = graph.load("main", LoadMode.OVERWRITE,
                ndjson("{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}",
                        "{\"type\":\"Company\",\"data\":{\"name\":\"Initech\"}}"),
                LoadOptions.DEFAULT.emptying(Set.of("Note"))).block();
        assertThat(replaced.commit().orElseThrow().deltas()).extracting(d -> d.tableKey())
                .containsExactlyInAnyOrder("node:Company", "node:Note");
        assertThat(rows(graph, "node:Company")).extracting(row -> row.get("id")).containsExactly("Acme", "Initech");
        assertThat(rows(graph, "node:Note")).isEmpty();
        assertThat(rows(graph, "node:Person")).hasSize(2);
    }

    @Test
    void overwriteThatWouldOrphanEdgesIsRefused() {
        load(LoadMode.APPEND, PEOPLE);
        Map<String, Long> before = versions(graph);
        assertThatThrownBy(() -> load(LoadMode.OVERWRITE, "{\"type\":\"Company\",\"data\":{\"name\":\"Initech\"}}"))
                .isInstanceOf(ValidationError.class).hasMessageContaining("orphan");
        assertThat(versions(graph)).isEqualTo(before);
    }

    @Test
    void everySchemaRuleFailsTheWholeLoadWithNothingWritten() {
        load(LoadMode.APPEND, PEOPLE);
        Map<String, Long> before = versions(graph);
        Map<String, String> cases = Map.of(
                "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Nobody\"}", "does not exist",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Old\",\"age\":151}}", "@range",
                "{\"type\":\"Person\",\"data\":{\"name\":\"B4d\"}}", "@check",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Dup\",\"email\":\"ada@x\"}}", "@unique",
                "{\"type\":\"Company\",\"data\":{\"name\":\"Other\"}}\n{\"edge\":\"WorksAt\",\"from\":\"Ada\",\"to\":\"Other\"}", "@card",
                "{\"type\":\"Person\",\"data\":{\"name\":\"Eve\",\"status\":\"gone\"}}", "not an allowed value");
        cases.forEach((input, message) -> assertThatThrownBy(() -> load(LoadMode.APPEND, input.split("\n")))
                .as(input).isInstanceOf(ValidationError.class).hasMessageContaining(message));
        assertThat(versions(graph)).isEqualTo(before);
    }

    @Test
    void malformedInputAndOversizedInputChangeNothing() {
        Map<String, Long> before = versions(graph);
        assertThatThrownBy(() -> load(LoadMode.APPEND, "{\"type\":\"Person\",\"data\":{\"name\":\"Ok\"}}", "{\"type\":"))
                .isInstanceOfSatisfying(ParseError.class, e -> assertThat(e.line()).isEqualTo(2));
        graph.withLimits(new WriteLimits(2, 1 << 20));
        assertThatThrownBy(() -> load(LoadMode.APPEND, "{\"type\":\"Note\",\"data\":{\"text\":\"1\"}}",
                "{\"type\":\"Note\",\"data\":{\"text\":\"2\"}}", "{\"type\":\"Note\",\"data\":{\"text\":\"3\"}}"))
                .isInstanceOf(ResourceLimitExceeded.class).hasMessageContaining("split");
        graph.withLimits(WriteLimits.DEFAULT);
        assertThat(versions(graph)).isEqualTo(before);
    }

    @Test
    void loadsFromAFileToo() throws Exception {
        Path file = dir.resolve("people.ndjson");
        Files.writeString(file, String.join("\n", PEOPLE) + "\n");
        WriteOutcome outcome = graph.load("main", LoadMode.APPEND, file, LoadOptions.DEFAULT.actor("loader")).block();
        assertThat(outcome.commit().orElseThrow().actorId()).contains("loader");
        assertThat(rows(graph, "edge:Knows")).hasSize(1);
    }

    @Test
    void conditionalLoadRefusesAMovedBranch() {
        String genesis = graph.snapshot(ReadTarget.main()).block().graphCommitId().orElseThrow();
        load(LoadMode.APPEND, PEOPLE);
        Map<String, Long> before = versions(graph);
        assertThatThrownBy(() -> graph.load("main", LoadMode.MERGE, ndjson(PEOPLE[0]),
                LoadOptions.DEFAULT.ifGraphCommit(genesis)).block())
                .isInstanceOfSatisfying(PreconditionFailed.class, e -> assertThat(e.expected()).isEqualTo(genesis));
        assertThat(versions(graph)).isEqualTo(before);
    }

    @Test
    void concurrentAppendsAllLandByReplanning() {
        List<WriteOutcome> outcomes = Flux.range(0, 8)
                .flatMap(i -> graph.load("main", LoadMode.APPEND,
                        ndjson("{\"type\":\"Note\",\"data\":{\"id\":\"n" + i + "\",\"text\":\"t\"}}"), LoadOptions.DEFAULT), 8)
                .collectList().block(Duration.ofSeconds(60));
        assertThat(outcomes).hasSize(8).allSatisfy(outcome -> assertThat(outcome.commit()).isPresent());
        assertThat(rows(graph, "node:Note")).hasSize(8);
        assertThat(graph.commits("main").collectList().block()).hasSize(9);
    }

    @Test
    void aFailureAfterTheFirstEffectIsCompensatedInProcess() {
        Map<String, Long> before = versions(graph);
        graph.failpoints().arm("load.after_commit:1", new Failpoints.Action.Error());
        assertThatThrownBy(() -> load(LoadMode.APPEND, PEOPLE))
                .isInstanceOf(dev.omnigraph.storage.error.StorageFault.class).hasMessageContaining("load.after_commit:1");
        graph.failpoints().disarm("load.after_commit:1");
        assertThat(graph.sidecars().list().collectList().block()).isEmpty();
        assertThat(rows(graph, "node:Person")).isEmpty();
        assertThat(graph.recoveries().collectList().block()).singleElement().satisfies(record ->
                assertThat(record.kind()).isEqualTo(dev.omnigraph.recovery.RecoveryRecord.Kind.RolledBack));
        assertThat(versions(graph)).isNotEqualTo(before); // the restore and its publish moved the pins
        assertThat(load(LoadMode.APPEND, PEOPLE).commit()).isPresent();
        assertThat(rows(graph, "node:Person")).hasSize(2);
    }

    @Test
    void cancellingBeforeTheSidecarIsArmedLeavesNothingVisible() {
        Map<String, Long> before = versions(graph);
        Failpoints.Parked parked = graph.failpoints().park("load.after_gates");
        Failpoints.Parked settled = graph.failpoints().park("load.after_attempt");
        Disposable write = graph.load("main", LoadMode.APPEND, ndjson(PEOPLE), LoadOptions.DEFAULT).subscribe();
        parked.reached().block();
        write.dispose();
        parked.release();
        settled.reached().block(); // the detached write ended: gates released, staged work discarded
        settled.release();
        graph.failpoints().disarm("load.after_gates");
        graph.failpoints().disarm("load.after_attempt");
        assertThat(versions(graph)).isEqualTo(before);
        assertThat(graph.sidecars().list().collectList().block()).isEmpty();
        StepVerifier.create(graph.load("main", LoadMode.APPEND, ndjson(PEOPLE), LoadOptions.DEFAULT))
                .assertNext(outcome -> assertThat(outcome.commit()).isPresent()).verifyComplete();
    }

    @Test
    void cancellingAfterArmingLetsTheWriteFinish() {
        Failpoints.Parked parked = graph.failpoints().park("load.after_arm");
        Failpoints.Parked settled = graph.failpoints().park("load.after_attempt");
        Disposable write = graph.load("main", LoadMode.APPEND, ndjson(PEOPLE), LoadOptions.DEFAULT).subscribe();
        parked.reached().block();
        assertThat(graph.sidecars().list().collectList().block()).hasSize(1);
        write.dispose();
        parked.release();
        settled.reached().block(); // the detached write ended: gates released, staged work discarded
        settled.release();
        graph.failpoints().disarm("load.after_arm");
        graph.failpoints().disarm("load.after_attempt");
        assertThat(graph.sidecars().list().collectList().block()).isEmpty();
        assertThat(rows(graph, "node:Person")).hasSize(2);
    }

    @Test
    void entityLimitAtExactlyTheBoundPassesAndOnePastFails() {
        graph.withLimits(new WriteLimits(3, 1 << 20));
        String[] three = {"{\"type\":\"Note\",\"data\":{\"text\":\"1\"}}", "{\"type\":\"Note\",\"data\":{\"text\":\"2\"}}",
                "{\"type\":\"Note\",\"data\":{\"text\":\"3\"}}"};
        assertThat(load(LoadMode.APPEND, three).commit()).isPresent();
        Map<String, Long> before = versions(graph);
        String[] four = java.util.Arrays.copyOf(three, 4);
        four[3] = "{\"type\":\"Note\",\"data\":{\"text\":\"4\"}}";
        assertThatThrownBy(() -> load(LoadMode.MERGE, four)).isInstanceOfSatisfying(ResourceLimitExceeded.class, e -> {
            assertThat(e.allowed()).isEqualTo(3);
            assertThat(e.actual()).isEqualTo(4);
        });
        // Overwrite is exempt from the entity cap, not from the byte cap.
        assertThat(load(LoadMode.OVERWRITE, four).commit()).isPresent();
        graph.withLimits(new WriteLimits(3, 64));
        assertThatThrownBy(() -> load(LoadMode.OVERWRITE, four)).isInstanceOf(ResourceLimitExceeded.class)
                .hasMessageContaining("bytes");
        graph.withLimits(WriteLimits.DEFAULT);
        assertThat(rows(graph, "node:Note")).hasSize(4);
        assertThat(before).isNotEmpty();
    }

    @Test
    void reRunningAMergeIsIdempotentButStillCommits() {
        String[] withEdgeIds = {PEOPLE[0], PEOPLE[1], PEOPLE[2],
                "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Bob\",\"data\":{\"id\":\"k1\"}}",
                "{\"edge\":\"WorksAt\",\"from\":\"Ada\",\"to\":\"Acme\",\"data\":{\"id\":\"w1\"}}"};
        WriteOutcome first = load(LoadMode.MERGE, withEdgeIds);
        List<Map<String, Object>> people = rows(graph, "node:Person");
        List<Map<String, Object>> knows = rows(graph, "edge:Knows");
        WriteOutcome second = load(LoadMode.MERGE, withEdgeIds);
        assertThat(second.commit().orElseThrow().id()).isNotEqualTo(first.commit().orElseThrow().id());
        assertThat(rows(graph, "node:Person")).isEqualTo(people);
        assertThat(rows(graph, "edge:Knows")).isEqualTo(knows);
        assertThat(rows(graph, "edge:WorksAt")).hasSize(1);
        // Edges without ids get fresh ids on every load, so the same file again adds edges: here @card(0..1) refuses it.
        assertThatThrownBy(() -> load(LoadMode.MERGE, PEOPLE)).isInstanceOf(ValidationError.class).hasMessageContaining("@card");
    }
}

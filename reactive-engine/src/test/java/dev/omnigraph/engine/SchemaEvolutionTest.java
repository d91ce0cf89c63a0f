package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.rows;
import static dev.omnigraph.engine.GraphTestSupport.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.evolve.PlanStep;
import dev.omnigraph.engine.evolve.SchemaApplyResult;
import dev.omnigraph.engine.evolve.SchemaPlan;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.ParseError;
import dev.omnigraph.storage.error.ValidationError;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Schema plan/apply on a graph with data: every step kind, refusals that change nothing, no-op re-apply, reopen. */
class SchemaEvolutionTest extends InitedGraphTestBase {
    static final String BASE = """
            node Person {
                name: String @key
                age: I32?
                status: enum(active, retired)?
            }
            node Note {
                text: String
            }
            edge Knows: Person -> Person
            """;
    static final String SEED = """
            query add($name: String, $age: I32) { insert Person { name: $name, age: $age } }
            query knows($a: String, $b: String) { insert Knows { from: $a, to: $b } }
            query note($t: String) { insert Note { text: $t } }
            """;

    @Override
    String schema() {
        return BASE;
    }

    @BeforeEach
    void seed() {
        mutate("add", "name", "Ada", "age", 36);
        mutate("add", "name", "Bob", "age", 40);
        mutate("knows", "a", "Ada", "b", "Bob");
        mutate("note", "t", "hello");
    }

    @AfterEach
    void tearDown() {
        if (graph != null) {
            assertThat(graph.gates().allIdle()).as("no gate left held").isTrue();
            graph.close();
        }
    }

    void mutate(String query, Object... kv) {
        Map<String, Object> params = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) params.put((String) kv[i], kv[i + 1]);
        graph.mutate("main", SEED, query, params, WriteOptions.DEFAULT).block(Duration.ofSeconds(60));
    }

    SchemaApplyResult apply(String source, boolean allowDataLoss) {
        return graph.applySchema(source, allowDataLoss, Optional.of("tester")).block(Duration.ofSeconds(120));
    }

    List<List<Object>> query(String source) {
        return graph.query(ReadTarget.main(), source, "q", Map.of()).flatMap(out -> out.rows().collectList())
                .block(Duration.ofSeconds(60));
    }

    Map<String, Object> row(String tableKey, String id) {
        return rows(graph, tableKey).stream().filter(r -> id.equals(r.get("id"))).findFirst().orElseThrow();
    }

    @Test
    void addingANullablePropertyRewritesAndOldRowsReadNull() {
        String next = BASE.replace("age: I32?", "age: I32?\n    nickname: String?");
        SchemaPlan plan = graph.planSchema(next).block();
        assertThat(plan.steps()).extracting(PlanStep::kind).containsExactly(PlanStep.Kind.ADD_PROPERTY);
        assertThat(plan.steps().get(0).effect()).isEqualTo(PlanStep.Effect.REWRITES);
        SchemaApplyResult result = apply(next, false);
        assertThat(result.applied()).isTrue();
        assertThat(row("node:Person", "Ada")).containsEntry("nickname", null).containsEntry("age", 36);
        assertThat(graph.schemaSource()).isEqualTo(next);
        assertThat(query("query q() { match { $p: Person } return { $p.name, $p.nickname } order { $p.name } }"))
                .containsExactly(java.util.Arrays.asList("Ada", null), java.util.Arrays.asList("Bob", null));
    }

    @Test
    void aRequiredPropertyNeedsADefaultOnAPopulatedType() {
        Map<String, Long> before = versions(graph);
        assertThatThrownBy(() -> apply(BASE.replace("text: String", "text: String\n    lang: String"), false))
                .isInstanceOf(ValidationError.class).hasMessageContaining("OG-MF-103").hasMessageContaining("schema:8:5: [Note.lang]");
        assertThat(versions(graph)).isEqualTo(before);
        apply(BASE.replace("text: String", "text: String\n    lang: String @default(\"en\")"), false);
        assertThat(rows(graph, "node:Note")).allSatisfy(r -> assertThat(r).containsEntry("lang", "en"));
    }

    @Test
    void droppingAPropertyNeedsTheFlagThenLosesTheColumn() {
        String next = BASE.replace("    age: I32?\n", "");
        Map<String, Long> before = versions(graph);
        assertThatThrownBy(() -> apply(next, false)).isInstanceOf(BadRequest.class).hasMessageContaining("--allow-data-loss");
        assertThat(versions(graph)).isEqualTo(before);
        assertThat(graph.schemaSource()).isEqualTo(BASE);
        apply(next, true);
        assertThat(row("node:Person", "Ada")).doesNotContainKey("age").containsEntry("name", "Ada");
    }

    @Test
    void renamesKeepIdentityDataAndEdges() {
        String next = """
                node Human @rename_from("Person") {
                    name: String @key
                    years: I32? @rename_from("age")
                    status: enum(active, retired)?
                }
                node Note {
                    text: String
                }
                edge Knows: Human -> Human
                """;
        String pathBefore = graph.snapshot(ReadTarget.main()).block().table("node:Person").orElseThrow().path();
        SchemaPlan plan = graph.planSchema(next).block();
        assertThat(plan.steps()).extracting(PlanStep::kind)
                .contains(PlanStep.Kind.RENAME_TYPE, PlanStep.Kind.RENAME_PROPERTY);
        apply(next, false);
        GraphSnapshot snapshot = graph.snapshot(ReadTarget.main()).block();
        assertThat(snapshot.table("node:Person")).isEmpty();
        assertThat(snapshot.table("node:Human").orElseThrow().path()).isEqualTo(pathBefore);
        assertThat(row("node:Human", "Bob")).containsEntry("years", 40);
        assertThat(query("query q() { match { $a: Human  $a knows $b } return { $a.name, $b.name } }"))
                .containsExactly(List.of("Ada", "Bob"));
        graph.close();
        graph = Omnigraph.open(services, dir.resolve("g"), OpenMode.READ_WRITE).block();
        assertThat(graph.catalog().node("Human")).isPresent();
    }

    @Test
    void addingAndDroppingTypes() {
        String added = BASE + "node Tag {\n    label: String @key\n}\n";
        apply(added, false);
        assertThat(graph.snapshot(ReadTarget.main()).block().table("node:Tag")).isPresent();
        graph.mutate("main", "query t($l: String) { insert Tag { label: $l } }", "t", Map.of("l", "x"),
                WriteOptions.DEFAULT).block();
        assertThat(rows(graph, "node:Tag")).hasSize(1);
        String dropped = BASE.replace("node Note {\n    text: String\n}\n", "");
        assertThatThrownBy(() -> apply(dropped + "node Tag {\n    label: String @key\n}\n", false))
                .isInstanceOf(BadRequest.class);
        apply(dropped + "node Tag {\n    label: String @key\n}\n", true);
        assertThat(graph.snapshot(ReadTarget.main()).block().table("node:Note")).isEmpty();
        graph.close();
        graph = Omnigraph.open(services, dir.resolve("g"), OpenMode.READ_WRITE).block();
        assertThat(graph.catalog().node("Note")).isEmpty();
        assertThat(graph.catalog().node("Tag")).isPresent();
    }

    @Test
    void enumWideningIsMetadataOnlyAndNarrowingIsRefused() {
        Map<String, Long> before = versions(graph);
        String wider = BASE.replace("enum(active, retired)", "enum(active, retired, paused)");
        SchemaApplyResult result = apply(wider, false);
        assertThat(result.steps()).extracting(PlanStep::effect).containsExactly(PlanStep.Effect.METADATA);
        Map<String, Long> after = versions(graph);
        assertThat(after.get("node:Person")).isEqualTo(before.get("node:Person"));
        assertThatThrownBy(() -> apply(BASE.replace("enum(active, retired)", "enum(active)"), false))
                .isInstanceOf(ValidationError.class).hasMessageContaining("OG-MF-106");
    }

    @Test
    void aRangeExistingDataViolatesIsRefusedAndOneItSatisfiesApplies() {
        Map<String, Long> before = versions(graph);
        String strict = BASE.replace("status: enum(active, retired)?", "status: enum(active, retired)?\n    @range(age, 0..38)");
        assertThatThrownBy(() -> apply(strict, false)).isInstanceOf(Conflict.class).hasMessageContaining("Bob");
        assertThat(versions(graph)).isEqualTo(before);
        assertThat(graph.schemaSource()).isEqualTo(BASE);
        String loose = BASE.replace("status: enum(active, retired)?", "status: enum(active, retired)?\n    @range(age, 0..150)");
        assertThat(apply(loose, false).applied()).isTrue();
    }

    @Test
    void applyingTheSameSchemaTwiceCommitsOnce() {
        String next = BASE.replace("age: I32?", "age: I32?\n    nickname: String?");
        assertThat(apply(next, false).applied()).isTrue();
        Map<String, Long> before = versions(graph);
        assertThat(apply(next, false).applied()).isFalse();
        assertThat(versions(graph)).isEqualTo(before);
    }

    @Test
    void badSourceIsAParseErrorAndChangesNothing() {
        Map<String, Long> before = versions(graph);
        assertThatThrownBy(() -> apply("node Person {\n  name: Strin\n}", false)).isInstanceOf(ParseError.class);
        assertThat(versions(graph)).isEqualTo(before);
    }

    @Test
    void applyIsRefusedWhileAnotherBranchExists() throws Exception {
        long manifestVersion = graph.snapshot(ReadTarget.main()).block().manifestVersion();
        services.tables().createBranch(TableRef.main(graph.root().resolve("__manifest").toString()), manifestVersion,
                "feature").block();
        assertThatThrownBy(() -> apply(BASE.replace("age: I32?", "age: I32?\n    nickname: String?"), false))
                .isInstanceOf(Conflict.class).hasMessageContaining("feature");
        assertThat(Files.exists(graph.root().resolve("_schema.pg.staging"))).isFalse();
    }

    @Test
    void timeTravelAcrossASchemaChangeReadsTheOldDataWithTheOldSchema() {
        String before = graph.snapshot(ReadTarget.main()).block().graphCommitId().orElseThrow();
        String next = """
                node Human @rename_from("Person") {
                    name: String @key
                    years: I32? @rename_from("age")
                }
                node Note {
                    text: String
                }
                edge Knows: Human -> Human
                """;
        apply(next, true);
        String oldQuery = "query q() { match { $p: Person } return { $p.name, $p.age, $p.status } order { $p.name } }";
        List<List<Object>> old = graph.query(ReadTarget.commit(before), oldQuery, "q", Map.of())
                .flatMap(out -> out.rows().collectList()).block(Duration.ofSeconds(60));
        assertThat(old).containsExactly(java.util.Arrays.asList("Ada", 36, null), java.util.Arrays.asList("Bob", 40, null));
        assertThat(query("query q() { match { $p: Human } return { $p.name, $p.years } order { $p.name } }"))
                .containsExactly(List.of("Ada", 36), List.of("Bob", 40));
    }
}

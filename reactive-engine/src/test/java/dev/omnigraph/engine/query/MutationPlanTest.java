package dev.omnigraph.engine.query;

import static dev.omnigraph.engine.query.TestCatalog.CATALOG;
import static dev.omnigraph.engine.query.TestCatalog.mutation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.query.MutationPlan.Delete;
import dev.omnigraph.engine.query.MutationPlan.Insert;
import dev.omnigraph.engine.query.MutationPlan.Predicate;
import dev.omnigraph.engine.query.MutationPlan.Update;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.ValidationError;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Mutation plans: statement shapes, compile-time literal coercion, per-request resolution and the D2 rule. */
class MutationPlanTest {
    static final Instant NOW = Instant.parse("2024-05-06T07:08:09.123456789Z");

    @Test
    void insertCoercesLiteralsToThePropertyTypes() {
        MutationPlan plan = mutation("""
                query add() {
                  insert Person {
                    name: "Ann"
                    age: 41
                    score: 7
                    rating: 2.5
                    big: 18446744073709551615
                    tags: ["a", "b"]
                    born: date("1983-02-01")
                    seen: datetime("2024-01-02T03:04:05.678+02:00")
                    active: true
                    mood: "happy"
                    embedding: [1, 0.5, 0]
                  }
                }
                """);
        Insert ins = (Insert) plan.statements().get(0);
        assertThat(ins.table()).isSameAs(CATALOG.node("Person").orElseThrow());
        Map<String, Object> values = ins.resolve(BoundParams.empty(), NOW);
        assertThat(values).containsEntry("name", "Ann")
                .containsEntry("age", 41)
                .containsEntry("score", 7.0d)
                .containsEntry("rating", 2.5f)
                .containsEntry("big", -1L) // U64 max as unsigned bits
                .containsEntry("tags", List.of("a", "b"))
                .containsEntry("born", LocalDate.of(1983, 2, 1))
                .containsEntry("seen", Instant.parse("2024-01-02T01:04:05.678Z"))
                .containsEntry("active", true)
                .containsEntry("mood", "happy")
                .containsEntry("embedding", List.of(1f, 0.5f, 0f));
        assertThat(values.keySet()).first().isEqualTo("name");
        assertThat(plan.isDelete()).isFalse();
    }

    @Test
    void edgeInsertMapsFromAndToOntoSrcAndDst() {
        MutationPlan plan = mutation("""
                query link($a: String, $b: String, $d: Date?) {
                  insert Knows { from: $a, to: $b, since: $d }
                  insert WORKSAT { from: $a to: "Acme" role: "cto" }
                }
                """);
        Insert knows = (Insert) plan.statements().get(0);
        assertThat(knows.table()).isSameAs(CATALOG.edge("Knows").orElseThrow());
        assertThat(knows.assignments()).containsOnlyKeys("src", "dst", "since");
        assertThat(knows.assignments().get("src")).isEqualTo(new ValueExpr.Param("a"));
        Map<String, Object> raw = new HashMap<>();
        raw.put("a", "Ann");
        raw.put("b", "Bob");
        BoundParams params = plan.bind(raw);
        Map<String, Object> row = knows.resolve(params, NOW);
        assertThat(row).containsEntry("src", "Ann").containsEntry("dst", "Bob").containsEntry("since", null);
        assertThat(plan.statements().get(1).table()).isSameAs(CATALOG.edge("WorksAt").orElseThrow());
    }

    @Test
    void paramsAndNowResolvePerRequestIntoThePropertyType() {
        MutationPlan plan = mutation("""
                query up($n: String, $s: I64, $m: String, $age: I64?) {
                  update Person set { score: $s, seen: now(), mood: $m, age: $age } where name = $n
                }
                """);
        Update up = (Update) plan.statements().get(0);
        assertThat(up.where()).isEqualTo(new Predicate("name", CompareOp.EQ, new ValueExpr.Param("n")));
        BoundParams ok = plan.bind(Map.of("n", "Ann", "s", 3, "m", "sad"));
        Map<String, Object> values = up.resolve(ok, NOW);
        assertThat(values).containsEntry("score", 3.0d).containsEntry("mood", "sad").containsEntry("age", null);
        assertThat(values.get("seen")).isEqualTo(Instant.parse("2024-05-06T07:08:09.123Z"));
        assertThat(up.where().resolve(up.table(), ok, NOW)).isEqualTo("Ann");

        BoundParams badEnum = plan.bind(Map.of("n", "Ann", "s", 3, "m", "angry"));
        // Breaking the schema's enum is a validation error naming type and property, as the guide says.
        assertThatThrownBy(() -> up.resolve(badEnum, NOW)).isInstanceOfSatisfying(ValidationError.class, e -> {
            assertThat(e.typeName()).isEqualTo("Person");
            assertThat(e.property()).isEqualTo("mood");
        }).hasMessage("Person.mood: 'angry' (param $m) is not an allowed value of enum(happy, sad)");
        BoundParams tooBig = plan.bind(Map.of("n", "Ann", "s", 3, "m", "sad", "age", 5_000_000_000L));
        assertThatThrownBy(() -> up.resolve(tooBig, NOW)).isInstanceOf(BadRequest.class)
                .hasMessageContaining("param $age: expected I32, got integer 5000000000 (out of range)");
    }

    @Test
    void optionalParamIntoRequiredPropertyIsRefusedPerRequest() {
        MutationPlan plan = mutation("query add($n: String?) { insert Person { name: $n } }");
        Insert ins = (Insert) plan.statements().get(0);
        assertThatThrownBy(() -> ins.resolve(plan.bind(Map.of()), NOW)).isInstanceOf(BadRequest.class)
                .hasMessage("param $n is null but Person.name is not nullable");
    }

    @Test
    void deletesOfNodesAndEdgesWithIdAndEndpointPredicates() {
        MutationPlan plan = mutation("""
                query rm($id: String) {
                  delete Person where id = $id
                  delete Knows where from = $id
                  delete Person where age < 18
                }
                """);
        assertThat(plan.isDelete()).isTrue();
        Delete edge = (Delete) plan.statements().get(1);
        assertThat(edge.where().property()).isEqualTo("src");
        Delete minors = (Delete) plan.statements().get(2);
        assertThat(minors.where()).isEqualTo(new Predicate("age", CompareOp.LT, new ValueExpr.Literal(18)));
        assertThat(minors.slot("age")).isEqualTo(new MutationPlan.Slot("age", new dev.omnigraph.engine.schema.PropertyType.Scalar(
                dev.omnigraph.engine.schema.ScalarKind.I32), true));
    }

    @Test
    void embeddedVectorMayBeLeftToItsSource() {
        MutationPlan plan = mutation("query add() { insert Doc { body: \"hello\" } }");
        assertThat(((Insert) plan.statements().get(0)).assignments()).containsOnlyKeys("body");
    }

    @Test
    void mixingInsertsOrUpdatesWithDeletesIsRefused() {
        String src = """
                query mixed($n: String) {
                  insert Person { name: $n }
                  delete Person where name = "old"
                }
                """;
        assertThatThrownBy(() -> mutation(src)).isInstanceOf(BadRequest.class)
                .hasMessageContaining("mutation 'mixed' on the same query mixes inserts/updates and deletes")
                .hasMessageContaining("split into separate mutations: (1) inserts and updates, then (2) deletes");
        // D2 is decided before any type check: even an unknown type does not mask it
        assertThatThrownBy(() -> mutation("query m() { update Nope set { a: 1 } where a = 1\n delete Person where name = \"x\" }"))
                .isInstanceOf(BadRequest.class).hasMessageContaining("mixes inserts/updates and deletes");
    }
}

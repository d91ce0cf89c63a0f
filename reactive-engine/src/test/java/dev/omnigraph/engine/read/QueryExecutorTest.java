package dev.omnigraph.engine.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.storage.manifest.ManifestState;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Each clause and operator against the {@link ReadFixture} graph; expected answers are worked out by hand. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QueryExecutorTest {
    @TempDir
    static Path dir;
    StorageServices services;
    Omnigraph graph;
    ManifestState state;

    @BeforeAll
    void setUp() {
        services = ReadFixture.services();
        graph = ReadFixture.graph(services, dir.resolve("g"));
        state = ReadFixture.head(graph);
    }

    @AfterAll
    void tearDown() {
        services.tables().close(); // fails on leaked Arrow memory
    }

    List<List<Object>> q(String source) {
        return q(source, Map.of());
    }

    List<List<Object>> q(String source, Map<String, Object> params) {
        return ReadFixture.run(graph, services, state, source, params).rows().collectList().block();
    }

    /** The single column of every row. */
    List<Object> col(String source) {
        return q(source).stream().map(r -> r.get(0)).toList();
    }

    static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }

    // ---- scans and filters -----------------------------------------------------------------------------

    @Test
    void scanReturnsEveryNode() {
        assertThat(col("query q() { match { $p: Person } return { $p.name } }"))
                .containsExactlyInAnyOrder("Ann", "Bob", "Cid", "Dan", "Eve", "Fay");
    }

    @Test
    void bindingMatchSelectsByKey() {
        assertThat(q("query q() { match { $p: Person { name: \"Ann\" } } return { $p.name, $p.age } }"))
                .containsExactly(row("Ann", 30));
    }

    @Test
    void greaterThanSkipsNulls() {
        assertThat(col("query q() { match { $p: Person  $p.age > 29 } return { $p.name } }"))
                .containsExactlyInAnyOrder("Ann", "Cid", "Eve", "Fay");
    }

    @Test
    void notEqualNeverMatchesNull() {
        assertThat(col("query q() { match { $p: Person  $p.age != 30 } return { $p.name } }"))
                .containsExactlyInAnyOrder("Bob", "Cid", "Fay");
    }

    @Test
    void lessThanAndBoundsAreInclusiveWhereWritten() {
        assertThat(col("query q() { match { $p: Person  $p.age < 30 } return { $p.name } }")).containsExactly("Bob");
        assertThat(col("query q() { match { $p: Person  $p.age <= 30 } return { $p.name } }"))
                .containsExactlyInAnyOrder("Ann", "Bob", "Eve");
        assertThat(col("query q() { match { $p: Person  $p.age >= 35  $p.age <= 40 } return { $p.name } }"))
                .containsExactlyInAnyOrder("Cid", "Fay");
    }

    @Test
    void literalOnTheLeftFlipsTheComparison() {
        assertThat(col("query q() { match { $p: Person  35 <= $p.age } return { $p.name } }"))
                .containsExactlyInAnyOrder("Cid", "Fay");
    }

    @Test
    void floatLiteralAgainstIntegerComparesByValue() {
        assertThat(col("query q() { match { $p: Person  $p.age < 30.5 } return { $p.name } }"))
                .containsExactlyInAnyOrder("Ann", "Bob", "Eve");
    }

    @Test
    void startsWithIsACaseSensitivePrefix() {
        assertThat(col("query q() { match { $p: Person  $p.name starts_with \"A\" } return { $p.name } }")).containsExactly("Ann");
        assertThat(col("query q() { match { $p: Person  $p.name starts_with \"a\" } return { $p.name } }")).isEmpty();
    }

    @Test
    void stringContainsIsACaseSensitiveSubstring() {
        assertThat(col("query q() { match { $p: Person  $p.name contains \"a\" } return { $p.name } }"))
                .containsExactlyInAnyOrder("Dan", "Fay");
        assertThat(col("query q() { match { $p: Person  $p.nickName contains \"'\" } return { $p.name } }"))
                .containsExactly("Dan");
    }

    @Test
    void listContainsIsMembershipInFiltersAndBindings() {
        assertThat(col("query q() { match { $p: Person  $p.tags contains \"b\" } return { $p.name } }"))
                .containsExactlyInAnyOrder("Ann", "Bob");
        assertThat(col("query q() { match { $p: Person { tags: \"a\" } } return { $p.name } }")).containsExactly("Ann");
        assertThat(col("query q() { match { $p: Person  [\"Bob\", \"Eve\", \"Zed\"] contains $p.name } return { $p.name } }"))
                .containsExactlyInAnyOrder("Bob", "Eve");
    }

    @Test
    void camelCasePropertyAndQuotesInValues() {
        assertThat(col("query q() { match { $p: Person { nickName: \"D'Artagnan\" } } return { $p.name } }")).containsExactly("Dan");
        assertThat(col("query q() { match { $p: Person  $p.nickName = \"annie\" } return { $p.name } }")).containsExactly("Ann");
    }

    @Test
    void dateDateTimeEnumAndFloatFilters() {
        assertThat(col("query q() { match { $p: Person  $p.born < date(\"1995-01-01\") } return { $p.name } }"))
                .containsExactlyInAnyOrder("Ann", "Cid");
        assertThat(col("query q() { match { $p: Person  $p.seen > datetime(\"2024-03-01T10:00:00.249Z\") } return { $p.name } }"))
                .containsExactly("Ann");
        assertThat(col("query q() { match { $p: Person  $p.seen < now() } return { $p.name } }"))
                .containsExactlyInAnyOrder("Ann", "Bob");
        assertThat(col("query q() { match { $p: Person { level: \"junior\" } } return { $p.name } }"))
                .containsExactlyInAnyOrder("Bob", "Fay");
        assertThat(col("query q() { match { $p: Person  $p.score >= 2.5 } return { $p.name } }"))
                .containsExactlyInAnyOrder("Bob", "Eve");
        assertThat(col("query q() { match { $p: Person  $p.rating = 0.1 } return { $p.name } }")).containsExactly("Ann");
    }

    @Test
    void u64ComparesAsUnsigned() {
        assertThat(col("query q() { match { $p: Person  $p.big > 100 } return { $p.name } }")).containsExactly("Ann");
        assertThat(q("query q() { match { $p: Person { name: \"Ann\" } } return { $p.big } }").get(0).get(0))
                .isEqualTo(-1L); // U64 max travels as its unsigned bits
    }

    @Test
    void filterBetweenTwoVariables() {
        assertThat(q("""
                query q() { match { $a: Person  $b: Person  $a.age > $b.age  $b.name = "Cid" } return { $a.name } }"""))
                .containsExactly(row("Fay"));
    }

    // ---- traversals --------------------------------------------------------------------------------------

    @Test
    void singleHopHasSetSemanticsPerPair() {
        // Ann knows Bob through two parallel edges: one row.
        assertThat(col("query q() { match { $p: Person { name: \"Ann\" }  $p knows $f } return { $f.name } }"))
                .containsExactlyInAnyOrder("Bob", "Cid");
    }

    @Test
    void traversalExpandedFromItsDestination() {
        assertThat(col("query q() { match { $f: Person { name: \"Cid\" }  $p knows $f } return { $p.name } }"))
                .containsExactlyInAnyOrder("Ann", "Bob");
    }

    @Test
    void oneToTwoHopsWithVisitedSet() {
        assertThat(col("query q() { match { $p: Person { name: \"Ann\" }  $p knows {1, 2} $f } return { $f.name } }"))
                .containsExactlyInAnyOrder("Bob", "Cid", "Dan");
    }

    @Test
    void twoToThreeHopsExcludeNodesReachedEarlierAndTheStart() {
        // Cid is 2 hops away via Bob but 1 hop directly; Ann returns to herself at 3 hops: neither counts.
        assertThat(col("query q() { match { $p: Person { name: \"Ann\" }  $p knows {2, 3} $f } return { $f.name } }"))
                .containsExactly("Dan");
        assertThat(col("query q() { match { $p: Person { name: \"Bob\" }  $p knows {2, 3} $f } return { $f.name } }"))
                .containsExactlyInAnyOrder("Dan", "Ann");
    }

    @Test
    void multiHopGivesTheSamePairsWhicheverEndIsExpanded() {
        List<List<Object>> fromDan = q("""
                query q() { match { $b: Person { name: "Dan" }  $a knows {2, 3} $b } return { $a.name, $b.name } }""");
        List<List<Object>> forward = q("query q() { match { $a: Person  $a knows {2, 3} $b } return { $a.name, $b.name } }")
                .stream().filter(r -> r.get(1).equals("Dan")).toList();
        assertThat(fromDan).containsExactlyInAnyOrder(row("Ann", "Dan"), row("Bob", "Dan"));
        assertThat(forward).containsExactlyInAnyOrderElementsOf(fromDan);
    }

    @Test
    void selfLoopReachesItselfOnlyAtOneHop() {
        assertThat(col("query q() { match { $p: Person { name: \"Eve\" }  $p knows $f } return { $f.name } }")).containsExactly("Eve");
        assertThat(col("query q() { match { $p: Person { name: \"Eve\" }  $p knows {2, 2} $f } return { $f.name } }")).isEmpty();
    }

    @Test
    void undirectedTraversalFollowsBothDirections() {
        assertThat(col("query q() { match { $p: Person { name: \"Cid\" }  $p <knows> $f } return { $f.name } }"))
                .containsExactlyInAnyOrder("Ann", "Bob", "Dan");
        assertThat(col("query q() { match { $p: Person { name: \"Bob\" }  $p <knows> {2, 2} $f } return { $f.name } }"))
                .containsExactly("Dan");
    }

    @Test
    void edgeBindingReturnsOneRowPerEdge() {
        assertThat(q("""
                query q() { match { $p: Person { name: "Ann" }  $p $k:knows $f } return { $f.name, $k.weight, $k.id } }"""))
                .containsExactlyInAnyOrder(row("Bob", 0.9, "k1"), row("Bob", 0.3, "k6"), row("Cid", 0.1, "k4"));
    }

    @Test
    void edgeBindingWithEdgePropertyFilters() {
        assertThat(q("""
                query q() { match { $p: Person  $p $k:knows $f  $k.weight > 0.4  $k.weight < 1.0 } return { $p.name, $f.name } }"""))
                .containsExactlyInAnyOrder(row("Ann", "Bob"), row("Bob", "Cid"));
        assertThat(q("""
                query q() { match { $p: Person  $p $k:knows $f  $k.since >= date("2021-01-01") } return { $k.src, $k.dst } }"""))
                .containsExactly(row("Ann", "Cid"));
    }

    @Test
    void undirectedEdgeBindingCountsASelfLoopOnce() {
        assertThat(q("""
                query q() { match { $p: Person { name: "Cid" }  $p $k:<knows> $f } return { $f.name, $k.id } }"""))
                .containsExactlyInAnyOrder(row("Bob", "k2"), row("Dan", "k3"), row("Ann", "k4"));
        assertThat(col("query q() { match { $p: Person { name: \"Eve\" }  $p $k:<knows> $f } return { $k.id } }"))
                .containsExactly("k7");
    }

    @Test
    void chainAcrossTwoEdgeTypes() {
        assertThat(q("""
                query q() { match { $p knows $f  $f worksAt $c  $c.name = "Initech" } return { $p.name, $f.name } }"""))
                .containsExactlyInAnyOrder(row("Ann", "Cid"), row("Bob", "Cid"), row("Eve", "Eve"));
    }

    @Test
    void traversalBetweenBoundVariablesIsASemiJoin() {
        assertThat(q("query q() { match { $a knows $b  $b knows $c  $a knows $c } return { $a.name, $b.name, $c.name } }"))
                .containsExactlyInAnyOrder(row("Ann", "Bob", "Cid"), row("Eve", "Eve", "Eve"));
    }

    @Test
    void crossTypeHopBoundsCannotChain() {
        assertThat(q("query q() { match { $p worksAt {1, 3} $c } return { $p.name, $c.name } }")).hasSize(4);
        assertThat(q("query q() { match { $p worksAt {2, 3} $c } return { $p.name, $c.name } }")).isEmpty();
    }

    // ---- negation ----------------------------------------------------------------------------------------

    @Test
    void notIsAnAntiJoin() {
        assertThat(col("query q() { match { $p: Person  not { $p worksAt $_ } } return { $p.name } }"))
                .containsExactlyInAnyOrder("Dan", "Fay");
    }

    @Test
    void notWithAnInnerFilter() {
        assertThat(col("""
                query q() { match { $p: Person  not { $p worksAt $c  $c.name = "Acme" } } return { $p.name } }"""))
                .containsExactlyInAnyOrder("Cid", "Dan", "Eve", "Fay");
    }

    @Test
    void notKeepsRowsWhoseInnerComparisonIsNull() {
        assertThat(col("query q() { match { $p: Person  not { $p.age > 29 } } return { $p.name } }"))
                .containsExactlyInAnyOrder("Bob", "Dan");
    }

    @Test
    void notBetweenTwoOuterVariables() {
        assertThat(q("""
                query q() { match { $a: Person { name: "Ann" }  $b: Person  not { $a knows $b }  not { $b: Person { name: "Ann" } } }
                  return { $b.name } }"""))
                .extracting(r -> r.get(0)).containsExactlyInAnyOrder("Dan", "Eve", "Fay");
    }

    // ---- aggregates --------------------------------------------------------------------------------------

    @Test
    void countOfNodesAndOfNonNullValues() {
        assertThat(q("query q() { match { $p: Person } return { count($p), count($p.age) } }")).containsExactly(row(6L, 5L));
    }

    @Test
    void groupedCountOrderedWithTiesBrokenByTheGroupKey() {
        assertThat(q("""
                query q() { match { $p worksAt $c } return { $c.name, count($p) as n } order { n desc } }"""))
                .containsExactly(row("Acme", 2L), row("Initech", 2L));
    }

    @Test
    void sumAvgMinMaxPerGroup() {
        assertThat(q("""
                query q() { match { $p worksAt $c }
                  return { $c.name, sum($p.age), avg($p.age), min($p.age), max($p.age) } order { $c.name } }"""))
                .containsExactly(row("Acme", 55L, 27.5, 25, 30), row("Initech", 65L, 32.5, 30, 35));
    }

    @Test
    void floatStringAndDateAggregates() {
        assertThat(q("""
                query q() { match { $p: Person } return { sum($p.score), min($p.name), max($p.born), avg($p.score) } }"""))
                .containsExactly(row(7.0, "Ann", java.time.LocalDate.of(1999, 12, 31), 1.75));
    }

    @Test
    void aggregatesOverNothing() {
        assertThat(q("""
                query q() { match { $p: Person { name: "Nobody" } } return { count($p), sum($p.age), avg($p.age), max($p.age) } }"""))
                .containsExactly(row(0L, 0L, null, null));
        assertThat(q("query q() { match { $p: Person { name: \"Nobody\" } } return { $p.name, count($p) } }")).isEmpty();
    }

    @Test
    void groupingByAWholeNode() {
        // Ann has 2 friends; Bob, Cid, Dan and Eve 1 each: the tie falls back to the grouping node's id.
        List<List<Object>> rows = q("""
                query q() { match { $p knows $f } return { $p, count($f) as friends } order { friends desc } limit 2 }""");
        assertThat(rows).extracting(r -> ((Map<?, ?>) r.get(0)).get("name"), r -> r.get(1))
                .containsExactly(org.assertj.core.groups.Tuple.tuple("Ann", 2L), org.assertj.core.groups.Tuple.tuple("Bob", 1L));
    }

    @Test
    void groupsKeepNullAsAKey() {
        assertThat(q("query q() { match { $p: Person } return { $p.level, count($p) as n } order { $p.level } }"))
                .containsExactly(row(null, 2L), row("junior", 2L), row("senior", 2L));
    }

    // ---- order and limit ---------------------------------------------------------------------------------

    @Test
    void ascendingPutsNullsFirstAndBreaksTiesById() {
        assertThat(q("query q() { match { $p: Person } return { $p.name, $p.age } order { $p.age } }"))
                .containsExactly(row("Dan", null), row("Bob", 25), row("Ann", 30), row("Eve", 30), row("Cid", 35), row("Fay", 40));
    }

    @Test
    void descendingPutsNullsLastAndStillBreaksTiesAscending() {
        assertThat(col("query q() { match { $p: Person } return { $p.name } order { $p.age desc } }"))
                .containsExactly("Fay", "Cid", "Ann", "Eve", "Bob", "Dan");
    }

    @Test
    void orderByAnAliasAndAnUnprojectedProperty() {
        assertThat(col("query q() { match { $p: Person  $p.age > 0 } return { $p.name as who } order { $p.score desc, who } }"))
                .containsExactly("Eve", "Bob", "Ann", "Cid", "Fay");
    }

    @Test
    void tiesOnEveryKeyFallBackToAllBoundIds() {
        assertThat(q("query q() { match { $p: Person { name: \"Ann\" }  $p $k:knows $f } return { $f.name } order { $f.name } }"))
                .containsExactly(row("Bob"), row("Bob"), row("Cid")); // k1 before k6 only breaks the Bob tie
        assertThat(q("query q() { match { $p: Person { name: \"Ann\" }  $p $k:knows $f } return { $k.id } order { $f.name desc } }"))
                .containsExactly(row("k4"), row("k1"), row("k6"));
    }

    @Test
    void limitAfterOrderAndWithoutIt() {
        assertThat(col("query q() { match { $p: Person } return { $p.name } order { $p.age desc } limit 2 }"))
                .containsExactly("Fay", "Cid");
        assertThat(q("query q() { match { $p: Person } return { $p.name } limit 4 }")).hasSize(4);
        assertThat(q("query q() { match { $p: Person } return { $p.name } limit 0 }")).isEmpty();
    }

    // ---- params, projections -----------------------------------------------------------------------------

    @Test
    void parametersInBindingsAndFilters() {
        String source = "query q($min: I64, $tag: String?) { match { $p: Person  $p.age >= $min  $p.tags contains $tag } return { $p.name } }";
        assertThat(q(source, Map.of("min", 26, "tag", "b"))).containsExactly(row("Ann"));
        assertThat(q(source, Map.of("min", 0))).isEmpty(); // an absent optional parameter is NULL, which never matches
        // (a bare $param left of contains would parse as a traversal, so list membership of a parameter is written
        // as a binding match)
        assertThat(q("query q($t: String) { match { $p: Person { tags: $t } } return { $p.name } }", Map.of("t", "b")))
                .extracting(r -> r.get(0)).containsExactlyInAnyOrder("Ann", "Bob");
        assertThat(q("query q($n: String) { match { $p: Person { name: $n } } return { $p.age } }", Map.of("n", "Cid")))
                .containsExactly(row(35));
    }

    @Test
    void wholeNodeLiteralsAndNow() {
        List<List<Object>> rows = q("""
                query q() { match { $c: Company { name: "Acme" } } return { $c, 7 as seven, "x" as s, now() as t } }""");
        assertThat(rows).hasSize(1);
        @SuppressWarnings("unchecked") Map<String, Object> company = (Map<String, Object>) rows.get(0).get(0);
        assertThat(company).containsExactly(Map.entry("id", "Acme"), Map.entry("name", "Acme"), Map.entry("founded", 1990));
        assertThat(rows.get(0).subList(1, 4)).containsExactly(7L, "x", ReadFixture.NOW);
    }

    @Test
    void columnMetadataSpellsSchemaTypes() {
        QueryResult result = ReadFixture.run(graph, services, state, """
                query q() { match { $p: Person  $p knows $f } return { $p, $p.name, $p.age, $p.tags, count($f) as n, max($f.level) } }""", Map.of());
        assertThat(result.columns()).containsExactly(new ColumnMeta("p", "Person"), new ColumnMeta("p.name", "String"),
                new ColumnMeta("p.age", "I32?"), new ColumnMeta("p.tags", "[String]?"), new ColumnMeta("n", "I64"),
                new ColumnMeta("max(f.level)", "enum(junior, senior)?"));
        assertThat(result.rows().collectList().block()).hasSize(5);
    }

    @Test
    void listAndVectorValuesAreReturnedAsLists() {
        assertThat(q("query q() { match { $p: Person { name: \"Ann\" } } return { $p.tags, $p.vec, $p.born, $p.seen } }"))
                .containsExactly(row(List.of("a", "b"), List.of(0.5f, 1.25f), java.time.LocalDate.of(1990, 5, 1),
                        java.time.Instant.parse("2024-03-01T10:00:00.250Z")));
    }
}

package dev.omnigraph.engine.query;

import static dev.omnigraph.engine.query.TestCatalog.CATALOG;
import static dev.omnigraph.engine.query.TestCatalog.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.query.ReadPlan.AggregateOf;
import dev.omnigraph.engine.query.ReadPlan.Constant;
import dev.omnigraph.engine.query.ReadPlan.Direction;
import dev.omnigraph.engine.query.ReadPlan.EntityRef;
import dev.omnigraph.engine.query.ReadPlan.Filter;
import dev.omnigraph.engine.query.ReadPlan.NodeVar;
import dev.omnigraph.engine.query.ReadPlan.PropertyRef;
import dev.omnigraph.engine.query.ReadPlan.ResultType;
import dev.omnigraph.engine.query.ReadPlan.Traversal;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The resolved shape of read queries: everything an executor needs without looking names up again. */
class ReadPlanTest {
    static final NodeTable PERSON = CATALOG.node("Person").orElseThrow();
    static final NodeTable COMPANY = CATALOG.node("Company").orElseThrow();
    static final EdgeTable KNOWS = CATALOG.edge("Knows").orElseThrow();
    static final EdgeTable WORKS_AT = CATALOG.edge("WorksAt").orElseThrow();

    private static ResultType.Value value(ScalarKind kind, boolean nullable) {
        return new ResultType.Value(new PropertyType.Scalar(kind), nullable);
    }

    @Test
    void bindingWithEqualityMatchesCoercedToThePropertyTypes() {
        ReadPlan plan = read("""
                query q($n: String) {
                  match { $p: Person { name: $n, score: 3, tags: "x" } }
                  return { $p.name, $p.score }
                }
                """);
        NodeVar p = plan.match().nodes().get(0);
        assertThat(p.name()).isEqualTo("p");
        assertThat(p.table()).isSameAs(PERSON);
        assertThat(p.anonymous()).isFalse();
        assertThat(p.matches()).hasSize(3);
        assertThat(p.matches().get(0).value()).isEqualTo(new ValueExpr.Param("n"));
        assertThat(p.matches().get(1).value()).isEqualTo(new ValueExpr.Literal(3.0d)); // integer literal into F64
        assertThat(p.matches().get(1).membership()).isFalse();
        assertThat(p.matches().get(2).membership()).isTrue(); // a scalar against a list property tests membership
        assertThat(plan.columns()).containsExactly("p.name", "p.score");
        assertThat(plan.projections().get(1).type()).isEqualTo(value(ScalarKind.F64, true));
        assertThat(plan.params()).extracting(ParamDecl::name).containsExactly("n");
    }

    @Test
    void multiHopChainBindsEndpointsFromTheEdgeTypes() {
        ReadPlan plan = read("""
                query q() {
                  match {
                    $p: Person { name: "Ann" }
                    $p knows {1, 3} $f
                    $f worksAt $c
                  }
                  return { $p.name, $f.name, $c.title }
                }
                """);
        assertThat(plan.match().nodes()).extracting(NodeVar::name).containsExactly("p", "f", "c");
        assertThat(plan.match().nodes()).extracting(NodeVar::table).containsExactly(PERSON, PERSON, COMPANY);
        assertThat(plan.match().traversals()).containsExactly(
                new Traversal("p", KNOWS, "f", Direction.OUT, 1, 3, null),
                new Traversal("f", WORKS_AT, "c", Direction.OUT, 1, 1, null));
    }

    @Test
    void undirectedTraversalAndAnonymousEndpoint() {
        ReadPlan plan = read("""
                query q() {
                  match {
                    $p: Person
                    $p <knows> $f
                    $f knows $_
                  }
                  return { $f.name }
                }
                """);
        Traversal both = plan.match().traversals().get(0);
        assertThat(both.direction()).isEqualTo(Direction.BOTH);
        Traversal anon = plan.match().traversals().get(1);
        assertThat(anon.to()).isEqualTo("_#1");
        assertThat(plan.match().nodes().get(2).anonymous()).isTrue();
        assertThat(plan.match().nodes().get(2).table()).isSameAs(PERSON);
    }

    @Test
    void edgeBindingExposesEdgeProperties() {
        ReadPlan plan = read("""
                query q() {
                  match {
                    $p: Person
                    $p $k:knows $f
                    $k.weight > 0.5
                  }
                  return { $f.name, $k.since as since, $k.src }
                }
                """);
        assertThat(plan.match().traversals().get(0).edgeVariable()).isEqualTo("k");
        Filter f = plan.match().filters().get(0);
        assertThat(f.left()).isEqualTo(new PropertyRef("k", KNOWS.type().property("weight").orElseThrow(), true));
        assertThat(f.right()).isEqualTo(new Constant(new ValueExpr.Literal(0.5d), new PropertyType.Scalar(ScalarKind.F64), false));
        assertThat(plan.columns()).containsExactly("f.name", "since", "k.src");
        assertThat(plan.projections().get(1).type()).isEqualTo(value(ScalarKind.DATE, true));
        assertThat(plan.projections().get(2).type()).isEqualTo(value(ScalarKind.STRING, false));
    }

    @Test
    void filtersResolveOperandsAndLiteralTypes() {
        ReadPlan plan = read("""
                query q($min: I64, $tag: String?) {
                  match {
                    $p: Person
                    $p.age >= $min
                    $p.tags contains $tag
                    $p.age < 1.5
                    [1, 2] contains $p.age
                    $p.born > date("2020-01-01")
                    $p.mood = "happy"
                  }
                  return { $p.name }
                }
                """);
        List<Filter> fs = plan.match().filters();
        assertThat(fs.get(0).right()).isEqualTo(new Constant(new ValueExpr.Param("min"), new PropertyType.Scalar(ScalarKind.I64), false));
        assertThat(fs.get(1).op()).isEqualTo(CompareOp.CONTAINS);
        assertThat(((Constant) fs.get(1).right()).nullable()).isTrue();
        assertThat(fs.get(2).right()).isEqualTo(new Constant(new ValueExpr.Literal(1.5d), new PropertyType.Scalar(ScalarKind.F64), false));
        assertThat(fs.get(3).left()).isEqualTo(new Constant(new ValueExpr.Literal(List.of(1, 2)), new PropertyType.ListOf(ScalarKind.I32), false));
        assertThat(((Constant) fs.get(4).right()).value()).isEqualTo(new ValueExpr.Literal(java.time.LocalDate.of(2020, 1, 1)));
        assertThat(((Constant) fs.get(5).right()).valueType()).isInstanceOf(PropertyType.EnumOf.class);
    }

    @Test
    void negationIsAnAntiJoinOnOuterVariables() {
        ReadPlan plan = read("""
                query q() {
                  match {
                    $p: Person
                    not {
                      $p worksAt $c
                      $c.title = "Acme"
                    }
                    not { $p: Person { active: true } }
                  }
                  return { $p.name }
                }
                """);
        assertThat(plan.match().nodes()).extracting(NodeVar::name).containsExactly("p");
        ReadPlan.Negation first = plan.match().negations().get(0);
        assertThat(first.outerVariables()).containsExactly("p");
        assertThat(first.inner().nodes()).extracting(NodeVar::name).containsExactly("c");
        assertThat(first.inner().traversals()).containsExactly(new Traversal("p", WORKS_AT, "c", Direction.OUT, 1, 1, null));
        assertThat(first.inner().filters()).hasSize(1);
        // re-binding the outer $p inside not {} turns its matches into filters of that block
        ReadPlan.Negation second = plan.match().negations().get(1);
        assertThat(second.inner().nodes()).isEmpty();
        assertThat(second.inner().filters()).containsExactly(new Filter(
                new PropertyRef("p", PERSON.type().property("active").orElseThrow(), false), CompareOp.EQ,
                new Constant(new ValueExpr.Literal(true), new PropertyType.Scalar(ScalarKind.BOOL), false)));
    }

    @Test
    void aggregatesGroupByTheOtherProjections() {
        ReadPlan plan = read("""
                query q() {
                  match {
                    $p: Person
                    $p knows $f
                  }
                  return { $p.name, $p, count($f) as friends, sum($f.age), avg($f.age), max($f.born) }
                  order { friends desc, $p.name }
                  limit 5
                }
                """);
        assertThat(plan.aggregating()).isTrue();
        assertThat(plan.groupBy()).containsExactly(0, 1);
        assertThat(plan.columns()).containsExactly("p.name", "p", "friends", "sum(f.age)", "avg(f.age)", "max(f.born)");
        assertThat(plan.projections().get(1).expr()).isEqualTo(new EntityRef("p", PERSON));
        assertThat(plan.projections().get(1).type()).isEqualTo(new ResultType.Node(PERSON));
        AggregateOf count = (AggregateOf) plan.projections().get(2).expr();
        assertThat(count.fn()).isEqualTo(AggFn.COUNT);
        assertThat(count.arg()).isEqualTo(new EntityRef("f", PERSON));
        assertThat(count.type()).isEqualTo(value(ScalarKind.I64, false));
        assertThat(plan.projections().get(3).type()).isEqualTo(value(ScalarKind.I64, false));
        assertThat(plan.projections().get(4).type()).isEqualTo(value(ScalarKind.F64, true));
        assertThat(plan.projections().get(5).type()).isEqualTo(value(ScalarKind.DATE, true));
        assertThat(plan.order()).extracting(ReadPlan.OrderKey::projection).containsExactly(2, 0);
        assertThat(plan.order()).extracting(ReadPlan.OrderKey::descending).containsExactly(true, false);
        assertThat(plan.limit()).isEqualTo(5L);
    }

    @Test
    void orderByAPropertyThatIsNotReturnedAndNoLimit() {
        ReadPlan plan = read("""
                query q() {
                  match { $p: Person }
                  return { $p.name as who, $p.id, "x", now() }
                  order { $p.age desc, who }
                }
                """);
        assertThat(plan.aggregating()).isFalse();
        assertThat(plan.groupBy()).isEmpty();
        assertThat(plan.limit()).isNull();
        assertThat(plan.columns()).containsExactly("who", "p.id", "literal", "now");
        assertThat(plan.order().get(0).projection()).isEqualTo(-1);
        assertThat(plan.order().get(0).expr()).isEqualTo(new PropertyRef("p", PERSON.type().property("age").orElseThrow(), false));
        assertThat(plan.order().get(1).projection()).isEqualTo(0);
        assertThat(plan.projections().get(3).type()).isEqualTo(value(ScalarKind.DATETIME, false));
    }

    @Test
    void edgeNamesAreMatchedIgnoringCase() {
        ReadPlan plan = read("query q() { match { $p worksat $c } return { $c.title } }");
        assertThat(plan.match().traversals().get(0).edge()).isSameAs(WORKS_AT);
        assertThat(plan.match().nodes()).extracting(NodeVar::table).containsExactly(PERSON, COMPANY);
    }
}

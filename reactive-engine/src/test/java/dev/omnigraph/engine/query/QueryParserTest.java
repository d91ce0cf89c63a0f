package dev.omnigraph.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.query.Ast.Pos;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import dev.omnigraph.storage.error.BadRequest;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every grammar form of §3.1–3.3 parses into the expected tree (no catalog involved). */
class QueryParserTest {

    private static QueryDecl only(String src) {
        QueryFile f = QueryCompiler.parse(src);
        assertThat(f.queries()).hasSize(1);
        return f.queries().get(0);
    }

    private static Ast.ReadBody read(String src) {
        return (Ast.ReadBody) only(src).body();
    }

    @Test
    void declarationsParamsAnnotationsAndComments() {
        QueryFile f = QueryCompiler.parse("""
                // a line comment
                query first($a: String, $b: I64?, $c: [String], $d: Vector(3)?, $e: DateTime)
                    @description("Finds people") @instruction("use for lookups") {
                  /* a block
                     comment */ match { $p: Person } return { $p }
                }
                query second() { delete Person where name = "x" }
                """);
        assertThat(f.names()).containsExactly("first", "second");
        QueryDecl q = f.query("first");
        assertThat(q.pos()).isEqualTo(new Pos(2, 7));
        assertThat(q.description()).isEqualTo("Finds people");
        assertThat(q.instruction()).isEqualTo("use for lookups");
        assertThat(q.params()).extracting(ParamDecl::name).containsExactly("a", "b", "c", "d", "e");
        assertThat(q.params()).extracting(ParamDecl::spelling).containsExactly("String", "I64?", "[String]", "Vector(3)?", "DateTime");
        assertThat(q.params().get(2).type()).isEqualTo(new PropertyType.ListOf(ScalarKind.STRING));
        assertThat(q.params().get(3).optional()).isTrue();
        assertThat(q.isMutation()).isFalse();
        assertThat(f.query("second").isMutation()).isTrue();
        assertThat(f.query("second").description()).isNull();
    }

    @Test
    void unknownQueryNameListsTheAvailableOnes() {
        QueryFile f = QueryCompiler.parse("query a() { delete Person where name = \"x\" }\nquery b() { delete Person where name = \"y\" }");
        assertThatThrownBy(() -> f.query("c")).isInstanceOf(BadRequest.class)
                .hasMessageContaining("no query named 'c'").hasMessageContaining("available: a, b");
        assertThatThrownBy(() -> QueryCompiler.parse("// nothing\n").query("c")).isInstanceOf(BadRequest.class)
                .hasMessageContaining("declares no queries");
    }

    @Test
    void bindingsWithLiteralParamAndNowValues() {
        Ast.ReadBody b = read("""
                query q($n: String) {
                  match { $p: Person { name: $n, age: 30, seen: now(), } }
                  return { $p.name }
                }
                """);
        Ast.Binding binding = (Ast.Binding) b.match().get(0);
        assertThat(binding.variable()).isEqualTo("p");
        assertThat(binding.typeName()).isEqualTo("Person");
        assertThat(binding.matches()).extracting(Ast.PropMatch::property).containsExactly("name", "age", "seen");
        assertThat(binding.matches().get(0).value()).isEqualTo(new Ast.Var("n", new Pos(2, 30)));
        assertThat(binding.matches().get(1).value()).isEqualTo(new Ast.IntLit(BigInteger.valueOf(30), new Pos(2, 39)));
        assertThat(binding.matches().get(2).value()).isInstanceOf(Ast.Now.class);
    }

    @Test
    void traversalForms() {
        Ast.ReadBody b = read("""
                query q() {
                  match {
                    $p knows $f
                    $p knows {1, 3} $g
                    $p <knows> $h
                    $p $k:knows $i
                    $p worksAt {2,} $c
                    $_ knows $p
                  }
                  return { $p }
                }
                """);
        List<Ast.Traversal> ts = b.match().stream().map(Ast.Traversal.class::cast).toList();
        assertThat(ts.get(0)).extracting(Ast.Traversal::from, Ast.Traversal::edgeName, Ast.Traversal::to, Ast.Traversal::undirected)
                .containsExactly("p", "knows", "f", false);
        assertThat(ts.get(0).hops()).isNull();
        assertThat(ts.get(1).hops()).isEqualTo(new Ast.HopBounds(1, 3L, new Pos(4, 14)));
        assertThat(ts.get(2).undirected()).isTrue();
        assertThat(ts.get(3).edgeVariable()).isEqualTo("k");
        assertThat(ts.get(3).edgeVariablePos()).isEqualTo(new Pos(6, 8));
        assertThat(ts.get(4).hops().max()).isNull(); // rejected by the checker (T15), not the parser
        assertThat(ts.get(5).from()).isEqualTo("_");
    }

    @Test
    void filtersWithEveryOperatorAndNegation() {
        Ast.ReadBody b = read("""
                query q($x: I64) {
                  match {
                    $p: Person
                    $p.age = 1
                    $p.age != $x
                    $p.age < 2
                    $p.age <= 3
                    $p.age > 4.5
                    $p.age >= 5
                    $p.tags contains "a"
                    $p.name starts_with "A"
                    not { $p knows $f  $f.name = "Bob" }
                  }
                  return { $p }
                }
                """);
        List<CompareOp> ops = b.match().stream().filter(Ast.Filter.class::isInstance).map(c -> ((Ast.Filter) c).op()).toList();
        assertThat(ops).containsExactly(CompareOp.EQ, CompareOp.NE, CompareOp.LT, CompareOp.LE, CompareOp.GT, CompareOp.GE,
                CompareOp.CONTAINS, CompareOp.STARTS_WITH);
        Ast.Filter gt = (Ast.Filter) b.match().get(5);
        assertThat(gt.left()).isEqualTo(new Ast.PropAccess("p", "age", new Pos(8, 5), new Pos(8, 8)));
        assertThat(gt.right()).isInstanceOf(Ast.FloatLit.class);
        Ast.Negation not = (Ast.Negation) b.match().get(9);
        assertThat(not.clauses()).hasSize(2);
        assertThat(not.clauses().get(0)).isInstanceOf(Ast.Traversal.class);
        assertThat(not.clauses().get(1)).isInstanceOf(Ast.Filter.class);
    }

    @Test
    void bareVariableBeforeContainsIsATraversalOverAnEdgeNamedContains() {
        Ast.ReadBody b = read("query q() { match { $a contains $b } return { $a } }");
        assertThat(b.match().get(0)).isInstanceOf(Ast.Traversal.class);
        assertThat(((Ast.Traversal) b.match().get(0)).edgeName()).isEqualTo("contains");
    }

    @Test
    void returnAliasesAggregatesLiteralsOrderAndLimit() {
        Ast.ReadBody b = read("""
                query q() {
                  match { $p: Person }
                  return {
                    $p.name as name
                    count($p) as n, sum($p.age) avg($p.score) min($p.born) max($p.seen)
                    [1, 2.5] as nums, date("2024-03-01") as d, datetime("2024-03-01T10:00:00.123456Z") as t
                    true, "s" as s, now() as at, $p
                  }
                  order { n desc, $p.name asc, $p.age }
                  limit 10
                }
                """);
        assertThat(b.projections()).hasSize(13);
        assertThat(b.projections().get(0).alias()).isEqualTo("name");
        assertThat(b.projections().stream().filter(p -> p.expr() instanceof Ast.Aggregate)
                .map(p -> ((Ast.Aggregate) p.expr()).fn()).toList())
                .containsExactly(AggFn.COUNT, AggFn.SUM, AggFn.AVG, AggFn.MIN, AggFn.MAX);
        Ast.ListLit list = (Ast.ListLit) b.projections().get(6).expr();
        assertThat(list.items()).hasSize(2);
        assertThat(((Ast.DateLit) b.projections().get(7).expr()).value()).isEqualTo(LocalDate.of(2024, 3, 1));
        assertThat(((Ast.DateTimeLit) b.projections().get(8).expr()).value()).isEqualTo(Instant.parse("2024-03-01T10:00:00.123Z"));
        assertThat(b.projections().get(9).expr()).isInstanceOf(Ast.BoolLit.class);
        assertThat(b.order()).extracting(Ast.Ordering::descending).containsExactly(true, false, false);
        assertThat(b.order().get(0).expr()).isEqualTo(new Ast.AliasRef("n", new Pos(9, 11)));
        assertThat(b.limit()).isEqualTo(10L);
    }

    @Test
    void mutationStatements() {
        QueryDecl q = only("""
                query m($a: String, $b: String, $d: Date) {
                  insert Person { name: "Ann" age: 3, seen: now() }
                  insert Knows { from: $a, to: $b, since: $d }
                  update Person set { age: 4 } where name = $a
                }
                """);
        List<Ast.Statement> st = ((Ast.MutationBody) q.body()).statements();
        Ast.Insert ins = (Ast.Insert) st.get(0);
        assertThat(ins.assignments()).extracting(Ast.Assignment::property).containsExactly("name", "age", "seen");
        assertThat(((Ast.Insert) st.get(1)).assignments()).extracting(Ast.Assignment::property).containsExactly("from", "to", "since");
        Ast.Update up = (Ast.Update) st.get(2);
        assertThat(up.where()).extracting(Ast.Where::property, Ast.Where::op).containsExactly("name", CompareOp.EQ);
        Ast.MutationBody body = (Ast.MutationBody) only("query d() { delete Knows where from != \"x\" }").body();
        Ast.Delete del = (Ast.Delete) body.statements().get(0);
        assertThat(del.where().property()).isEqualTo("from");
        assertThat(del.where().op()).isEqualTo(CompareOp.NE);
    }

    @Test
    void lexicalErrorsNameTheQueryTheyOccurIn() {
        assertThatThrownBy(() -> QueryCompiler.parse("query good() { delete Person where name = \"a\" }\nquery bad() { delete Person where name = # }"))
                .hasMessage("query:2:42: [bad] Q000: unexpected character '#'");
        assertThatThrownBy(() -> QueryCompiler.parse("quer x() {}"))
                .hasMessage("query:1:1: Q000: expected 'query', found 'quer'");
    }
}

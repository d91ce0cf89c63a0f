package dev.omnigraph.engine.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.query.QueryCompiler;
import dev.omnigraph.engine.query.ReadPlan;
import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.CompiledSchema;
import dev.omnigraph.engine.schema.SchemaCompiler;
import dev.omnigraph.engine.schema.SchemaIr;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which filters reach the Lance scan as SQL (and exactly how), and the value order the Java side uses. */
class PushdownAndOrderTest {
    static final Catalog CATALOG = catalog();

    private static Catalog catalog() {
        CompiledSchema s = SchemaCompiler.compile(ReadFixture.SCHEMA);
        return Catalog.build(SchemaIr.initial(s), s);
    }

    /** The SQL pushed into the scan of {@code $p} for a query whose match block binds only $p. */
    static String sql(String matchBody, Map<String, Object> params, String paramDecls) {
        ReadPlan plan = (ReadPlan) QueryCompiler.check(QueryCompiler.parse(
                "query q(" + paramDecls + ") { match { $p: Person " + matchBody + " } return { $p.name } }").queries().get(0), CATALOG);
        Layout layout = Layout.of(plan);
        Predicates predicates = new Predicates(layout, plan.bind(params), ReadFixture.NOW);
        Matcher matcher = new Matcher(null, layout, predicates);
        return Matcher.pushdown(matcher.compile(plan.match()), "p");
    }

    static String sql(String matchBody) {
        return sql(matchBody, Map.of(), "");
    }

    @Test
    void pushableFilters() {
        // a match on the whole @key also names the one id it can have, so Lance can answer it from the id BTREE
        assertThat(sql("{ name: \"Ann\" }")).isEqualTo("((`id` = 'Ann') AND (`name` = 'Ann'))");
        assertThat(sql("{ nickName: \"D'A\" }  $p.age > 3")).isEqualTo("((`nickName` = 'D''A') AND (`age` > 3))");
        assertThat(sql("3 < $p.age")).isEqualTo("(`age` > 3)");
        assertThat(sql("$p.age != 3")).isEqualTo("(`age` <> 3)");
        assertThat(sql("$p.tags contains \"a\"")).isEqualTo("(array_has(`tags`, 'a'))");
        assertThat(sql("{ tags: \"a\" }")).isEqualTo("(array_has(`tags`, 'a'))");
        assertThat(sql("$p.name starts_with \"A\"")).isEqualTo("(starts_with(`name`, 'A'))");
        assertThat(sql("$p.name contains \"n\"")).isEqualTo("(contains(`name`, 'n'))");
        assertThat(sql("$p.score <= 1.5")).isEqualTo("(`score` <= 1.5)");
        assertThat(sql("$p.born >= date(\"2000-02-03\")")).isEqualTo("(`born` >= DATE '2000-02-03')");
        assertThat(sql("$p.level = \"senior\"")).isEqualTo("(`level` = 'senior')");
        assertThat(sql("[\"a\", \"b\"] contains $p.name")).isEqualTo("((`name` IN ('a', 'b')))");
        assertThat(sql("$p.id = \"Ann\"")).isEqualTo("(`id` = 'Ann')");
    }

    @Test
    void aMatchOnTheWholeKeyLeadsWithTheDerivedId() {
        assertThat(sql("{ name: $n }", Map.of("n", "D'A"), "$n: String")).isEqualTo("((`id` = 'D''A') AND (`name` = 'D''A'))");
        assertThat(sql("{ name: $n }", Map.of(), "$n: String?")).isEqualTo("(false)"); // absent: no id to derive
        assertThat(sql("$p.name = \"Ann\"")).isEqualTo("(`name` = 'Ann')"); // a filter, not a binding match
        assertThat(sql("{ nickName: \"Ann\" }")).isEqualTo("(`nickName` = 'Ann')"); // not the key
    }

    @Test
    void parametersAreResolvedAndNullNeverMatches() {
        assertThat(sql("$p.age >= $a", Map.of("a", 7), "$a: I64")).isEqualTo("(`age` >= 7)");
        assertThat(sql("$p.name = $n", Map.of(), "$n: String?")).isEqualTo("(false)");
        // an I64 parameter beyond I32 stays in Java: Lance would fail to coerce it to the column type
        assertThat(sql("$p.age < $a", Map.of("a", 1L << 40), "$a: I64")).isNull();
    }

    @Test
    void filtersWhoseSqlWouldDifferStayInJava() {
        assertThat(sql("$p.age < 1.5")).isNull(); // a fraction against an integer column
        assertThat(sql("$p.rating > 0.5")).isNull(); // F32
        assertThat(sql("$p.big > 5")).isNull(); // U64
        assertThat(sql("$p.seen > datetime(\"2024-01-01T00:00:00Z\")")).isNull(); // Date64
        assertThat(sql("$p.name contains \"\"")).isNull();
        assertThat(sql("$p.age = $p.age")).isNull(); // no constant side
    }

    @Test
    void valueOrder() {
        assertThat(ValueOrder.compare(-1L, true, 5L, false)).isPositive(); // U64 max vs 5
        assertThat(ValueOrder.compare(-1L, false, 5L, false)).isNegative();
        assertThat(ValueOrder.compare(-1L, true, -2L, true)).isPositive();
        assertThat(ValueOrder.compare(3, false, 2.5, false)).isPositive();
        assertThat(ValueOrder.compare(0.0, false, -0.0, false)).isZero();
        assertThat(ValueOrder.compare(Long.MAX_VALUE, false, 9.223372036854775807E18, false)).isNegative();
        assertThat(ValueOrder.compare(0.1f, false, 0.1, false)).isPositive(); // an F32 widened exactly
        // code point order = UTF-8 byte order: a supplementary character sorts after U+FFFD
        assertThat(ValueOrder.compareStrings("\uD83D\uDE00", "\uFFFD")).isPositive();
        assertThat("\uD83D\uDE00".compareTo("\uFFFD")).isNegative(); // what UTF-16 order would have said
        assertThat(ValueOrder.compare(List.of("a", "b"), false, List.of("a"), false)).isPositive();
        assertThat(ValueOrder.compareNullable(null, false, "a", false)).isNegative();
        assertThat(ValueOrder.compare(Map.of("id", "a"), false, Map.of("id", "b"), false)).isNegative();
    }
}

package dev.omnigraph.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.CompiledSchema;
import dev.omnigraph.engine.schema.SchemaCompiler;
import dev.omnigraph.engine.schema.SchemaIr;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.ParseError;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link QueryCache}: a cached parse or plan equals a fresh one, a plan is only found again for the very catalog it
 * was checked against, failures and mutations are not kept, and the entry count stays bounded.
 */
class QueryCacheTest {
    static final String SOURCE = """
            query byName($name: String) { match { $p: Person { name: $name } } return { $p.name, $p.age } }
            query twoHop($name: String) { match { $p: Person { name: $name }  $p knows {2, 2} $f } return { $f.name } }
            query add($name: String) { insert Person { name: $name } }
            """;

    @BeforeEach
    void empty() {
        QueryCache.clear();
    }

    @Test
    void aRepeatedTextIsParsedAndCheckedOnceAndAnswersAsAFreshCompile() {
        QueryFile parsed = QueryCompiler.parse(SOURCE);
        assertThat(QueryCompiler.parse(new String(SOURCE.toCharArray()))).isSameAs(parsed); // equal text, not identity
        assertThat(parsed).isEqualTo(Parser.parse(SOURCE));

        CompiledQuery plan = QueryCache.compileRead(SOURCE, "twoHop", TestCatalog.CATALOG);
        assertThat(QueryCache.compileRead(SOURCE, "twoHop", TestCatalog.CATALOG)).isSameAs(plan);
        assertThat(plan).isEqualTo(QueryCompiler.check(Parser.parse(SOURCE).query("twoHop"), TestCatalog.CATALOG));
        assertThat(QueryCache.compileRead(SOURCE, "byName", TestCatalog.CATALOG)).isNotEqualTo(plan);
    }

    @Test
    void aPlanIsOnlyReusedForTheCatalogItWasCheckedAgainst() {
        CompiledQuery plan = QueryCache.compileRead(SOURCE, "byName", TestCatalog.CATALOG);
        // The same schema text applied again is another catalog (a schema apply always makes a new one).
        CompiledSchema schema = SchemaCompiler.compile(TestCatalog.SCHEMA);
        Catalog other = Catalog.build(SchemaIr.initial(schema), schema);
        CompiledQuery again = QueryCache.compileRead(SOURCE, "byName", other);
        assertThat(again).isNotSameAs(plan);
        assertThat(((ReadPlan) again).match().nodes().get(0).table())
                .isSameAs(other.node("Person").orElseThrow());
        // A schema without the property the query reads refuses it, cache or not.
        CompiledSchema narrow = SchemaCompiler.compile("node Person { name: String @key }");
        Catalog narrowCatalog = Catalog.build(SchemaIr.initial(narrow), narrow);
        assertThatThrownBy(() -> QueryCache.compileRead(SOURCE, "byName", narrowCatalog)).isInstanceOf(ParseError.class);
        assertThatThrownBy(() -> QueryCache.compileRead(SOURCE, "byName", narrowCatalog)).isInstanceOf(ParseError.class);
    }

    @Test
    void failuresMutationsAndLargeSourcesAreNotKept() {
        assertThatThrownBy(() -> QueryCompiler.parse("query broken( {")).isInstanceOf(ParseError.class);
        assertThatThrownBy(() -> QueryCache.compileRead(SOURCE, "missing", TestCatalog.CATALOG)).isInstanceOf(BadRequest.class);
        assertThat(QueryCache.sizes()).containsExactly(1, 0); // only the good file is kept
        CompiledQuery mutation = QueryCache.compileRead(SOURCE, "add", TestCatalog.CATALOG);
        assertThat(mutation).isInstanceOf(MutationPlan.class);
        assertThat(QueryCache.sizes()[1]).isZero();

        String large = SOURCE + "//" + "x".repeat(QueryCache.MAX_SOURCE_CHARS) + "\n";
        QueryFile first = QueryCompiler.parse(large);
        assertThat(QueryCompiler.parse(large)).isNotSameAs(first).isEqualTo(first);
        assertThat(QueryCache.compileRead(large, "byName", TestCatalog.CATALOG))
                .isNotSameAs(QueryCache.compileRead(large, "byName", TestCatalog.CATALOG));
    }

    @Test
    void entriesStayBounded() {
        for (int i = 0; i < QueryCache.ENTRIES + 50; i++) {
            String source = "query q" + i + "() { match { $p: Person } return { $p.name } }";
            QueryCache.compileRead(source, "q" + i, TestCatalog.CATALOG);
        }
        assertThat(QueryCache.sizes()).containsExactly(QueryCache.ENTRIES, QueryCache.ENTRIES);
    }
}

package dev.omnigraph.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.ParseError;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * NUL and unpaired surrogates in {@code .gq} text and in parameters are refused naming where they are (a
 * position, a parameter); supplementary-plane characters (emoji) are ordinary text.
 */
class QueryTextRulesTest {
    private static final String LOOKUP = """
            query byName($name: String, $tags: [String]?) {
              match { $p: Person { name: $name } }
              return { $p.name }
            }
            """;

    private static ParseError parseError(String source) {
        Throwable thrown = catchThrowable(() -> QueryCompiler.parse(source));
        assertThat(thrown).isInstanceOf(ParseError.class);
        return (ParseError) thrown;
    }

    @Test
    void nulInAStringLiteralIsAPositionedParseError() {
        ParseError e = parseError("query q() {\n  match { $p: Person { name: \"ab\u0000c\" } }\n  return { $p }\n}");
        assertThat(e.line()).isEqualTo(2);
        assertThat(e.column()).isEqualTo(33);
        assertThat(e.subject()).isEqualTo("q");
        assertThat(e.getMessage()).contains("Q000: a NUL character (U+0000) is not allowed").doesNotContain("\u0000");
    }

    @Test
    void unpairedSurrogatesInALiteralOrBetweenTokensAreParseErrors() {
        ParseError literal = parseError("query q() {\n  delete Person where name = \"x\uD800\"\n}");
        assertThat(literal.line()).isEqualTo(2);
        assertThat(literal.column()).isEqualTo(32);
        assertThat(literal.getMessage()).contains("an unpaired surrogate (U+D800)").doesNotContain("\uD800");

        ParseError between = parseError("query q() {\n  delete Person where name = \uDC00\n}");
        assertThat(between.column()).isEqualTo(30);
        assertThat(between.getMessage()).contains("an unpaired surrogate (U+DC00)");
    }

    @Test
    void emojiLiteralsLexParseAndCheck() {
        String source = "query q() {\n  match { $p: Person { name: \"emoji \uD83D\uDE00\" } }\n  return { $p.name }\n}";
        QueryDecl q = QueryCompiler.parse(source).query("q");
        Ast.Binding b = (Ast.Binding) ((Ast.ReadBody) q.body()).match().get(0);
        assertThat(((Ast.StrLit) b.matches().get(0).value()).value()).isEqualTo("emoji 😀");
        assertThat(QueryCompiler.check(q, TestCatalog.CATALOG)).isInstanceOf(ReadPlan.class);

        String mutation = "query m() { insert Person { name: \"😀🎉\", tags: [\"a😀\"] } }";
        assertThat(QueryCompiler.check(QueryCompiler.parse(mutation).query("m"), TestCatalog.CATALOG))
                .isInstanceOf(MutationPlan.class);
        // An error after an emoji is positioned in code points: the emoji is one column.
        ParseError after = parseError("query q() { delete Person where name = \"😀\" x }");
        assertThat(after.column()).isEqualTo(44);
    }

    @Test
    void nulOrUnpairedSurrogateInAParamIsABadRequestNamingIt() {
        List<ParamDecl> decls = QueryCompiler.parse(LOOKUP).query("byName").params();
        assertThatThrownBy(() -> QueryCompiler.bind(decls, Map.of("name", "a\u0000b")))
                .isInstanceOf(BadRequest.class)
                .hasMessageStartingWith("param $name contains a NUL character (U+0000) at character 2");
        // A JSON escape of a lone surrogate reaches the binder as that lone char.
        assertThatThrownBy(() -> QueryCompiler.bind(decls, Map.of("$name", "\uD800")))
                .isInstanceOf(BadRequest.class)
                .hasMessageStartingWith("param $name contains an unpaired surrogate (U+D800) at character 1")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\uD800"));
        assertThatThrownBy(() -> QueryCompiler.bind(decls, Map.of("name", "x", "tags", Arrays.asList("ok", "b\uDFFF"))))
                .isInstanceOf(BadRequest.class)
                .hasMessageStartingWith("param $tags element 1 contains an unpaired surrogate (U+DFFF)");
        Map<String, Object> badName = new HashMap<>();
        badName.put("name", "x");
        badName.put("na\u0000me", "y");
        assertThatThrownBy(() -> QueryCompiler.bind(decls, badName))
                .isInstanceOf(BadRequest.class).hasMessageStartingWith("param name contains a NUL character");
    }

    @Test
    void emojiParamsBindUntouched() {
        List<ParamDecl> decls = QueryCompiler.parse(LOOKUP).query("byName").params();
        BoundParams bound = QueryCompiler.bind(decls, Map.of("name", "emoji 😀", "tags", List.of("🎉", "x")));
        assertThat(bound.get("name")).isEqualTo("emoji \uD83D\uDE00");
        assertThat(bound.get("tags")).isEqualTo(List.of("🎉", "x"));
    }

    @Test
    void aQueryNameThatIsNotValidTextIsABadRequest() {
        QueryFile file = QueryCompiler.parse(LOOKUP);
        assertThatThrownBy(() -> file.query("by\u0000Name"))
                .isInstanceOf(BadRequest.class).hasMessageStartingWith("query name contains a NUL character");
    }
}

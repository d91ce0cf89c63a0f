package dev.omnigraph.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.omnigraph.engine.query.Ast.Pos;
import dev.omnigraph.storage.error.ParseError;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Nesting forms ({@code not { }}, list literals, aggregate calls) are bounded with a positioned error, so no
 * input overflows the parser's stack; the source length is bounded too; and a stack overflow anywhere in the
 * front end still comes out as a {@link ParseError}. Before the bound, each deep input below was a
 * StackOverflowError.
 */
class NestingLimitTest {
    private static final int LIMIT = Parser.MAX_NESTING;

    private static Throwable parse(String source) {
        return catchThrowable(() -> QueryCompiler.parse(source));
    }

    private static void assertTooDeep(Throwable thrown, int line, int column) {
        assertThat(thrown).isInstanceOf(ParseError.class)
                .hasMessageContaining("Q000: nesting deeper than " + LIMIT + " levels");
        ParseError e = (ParseError) thrown;
        assertThat(e.sourceName()).isEqualTo("query");
        assertThat(e.subject()).isEqualTo("q");
        assertThat(e.line()).isEqualTo(line);
        assertThat(e.column()).isEqualTo(column);
    }

    /** {@code depth} nested not-blocks, each on its own line, around a filter on the outer binding. */
    private static String nots(int depth) {
        StringBuilder s = new StringBuilder("query q() {\nmatch {\n$p: Person\n");
        s.append("not {\n".repeat(depth)).append("$p.age > 1\n").append("}\n".repeat(depth));
        return s.append("}\nreturn { $p.name }\n}").toString();
    }

    @Test
    void threeThousandNestedNotBlocksAreAPositionedParseError() {
        // Line 4 holds the first not; the block one past the limit is on line 4 + LIMIT.
        assertTooDeep(parse(nots(3_000)), 4 + LIMIT, 1);
    }

    @Test
    void notBlocksUpToTheLimitParse() {
        QueryDecl q = QueryCompiler.parse(nots(LIMIT)).query("q");
        Ast.Clause c = ((Ast.ReadBody) q.body()).match().get(1);
        int depth = 0;
        while (c instanceof Ast.Negation n) {
            depth++;
            c = n.clauses().get(0);
        }
        assertThat(depth).isEqualTo(LIMIT);
        assertThat(QueryCompiler.check(q, TestCatalog.CATALOG)).isInstanceOf(ReadPlan.class);
    }

    @Test
    void twentyThousandDeepListLiteralIsAPositionedParseError() {
        String prefix = "query q() {\n  match { $p: Person { tags: ";
        String source = prefix + "[".repeat(20_000) + "\"x\"" + "]".repeat(20_000) + " } }\n  return { $p }\n}";
        // Columns count from 1, so the opening bracket one past the limit is at prefix + LIMIT + 1.
        assertTooDeep(parse(source), 2, prefix.length() - "query q() {\n".length() + LIMIT + 1);
    }

    @Test
    void deepListLiteralInAMutationIsAPositionedParseError() {
        String source = "query q() {\ninsert Person { name: \"a\", tags: " + "[".repeat(5_000) + "]".repeat(5_000) + " }\n}";
        assertTooDeep(parse(source), 2, "insert Person { name: \"a\", tags: ".length() + LIMIT + 1);
    }

    @Test
    void deepAggregateCallsAreAPositionedParseError() {
        String prefix = "query q() {\n  match { $p: Person }\n  return { ";
        String source = prefix + "count(".repeat(10_000) + "$p" + ")".repeat(10_000) + " }\n}";
        assertTooDeep(parse(source), 3, "  return { ".length() + LIMIT * "count(".length() + 1);
    }

    @Test
    void nestingFormsCountTogether() {
        // LIMIT not-blocks, then a list literal inside: one level too deep, reported at the '['.
        String source = "query q() {\nmatch {\n$p: Person\n" + "not {\n".repeat(LIMIT) + "$p.tags contains [1]\n"
                + "}\n".repeat(LIMIT) + "}\nreturn { $p }\n}";
        assertTooDeep(parse(source), 4 + LIMIT, "$p.tags contains ".length() + 1);
    }

    @Test
    void sourceLongerThanTheLimitIsRefusedBeforeLexing() {
        String source = "query q() { match { $p: Person } return { $p } }" + " ".repeat(Parser.MAX_SOURCE_CHARS);
        Throwable thrown = parse(source);
        assertThat(thrown).isInstanceOf(ResourceLimitExceeded.class);
        assertThat(((ResourceLimitExceeded) thrown).allowed()).isEqualTo(Parser.MAX_SOURCE_CHARS);
        assertThat(((ResourceLimitExceeded) thrown).actual()).isEqualTo(source.length());
        // At the limit it is accepted.
        String atLimit = source.substring(0, Parser.MAX_SOURCE_CHARS);
        assertThat(QueryCompiler.parse(atLimit).names()).containsExactly("q");
    }

    @Test
    void aStackOverflowInTheCheckerBecomesAParseErrorAtTheQuery() {
        // A tree no parser would build (far past the nesting bound): the checker recurses per level.
        Pos at = new Pos(1, 7);
        Ast.Clause inner = new Ast.Filter(new Ast.PropAccess("p", "age", at, at), CompareOp.GT,
                new Ast.IntLit(java.math.BigInteger.ONE, at), at, at);
        for (int i = 0; i < 200_000; i++) inner = new Ast.Negation(List.of(inner), at);
        Ast.ReadBody body = new Ast.ReadBody(List.of(new Ast.Binding("p", "Person", List.of(), at, at), inner),
                List.of(new Ast.Projection(new Ast.Var("p", at), null, at)), List.of(), null, at, null);
        QueryDecl decl = new QueryDecl("deep", List.of(), null, null, body, at);

        Throwable thrown = catchThrowable(() -> QueryCompiler.check(decl, TestCatalog.CATALOG));

        assertThat(thrown).isInstanceOf(ParseError.class).hasMessageContaining("nested too deeply");
        assertThat(((ParseError) thrown).subject()).isEqualTo("deep");
        assertThat(((ParseError) thrown).line()).isEqualTo(1);
        assertThat(((ParseError) thrown).column()).isEqualTo(7);
    }
}

package dev.omnigraph.engine.query;

import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Misuse of the search calls: the documented code (T15, T17–T21) at the offending text's line and column; run by
 * {@link QueryErrorTest} with its checks.
 */
final class SearchErrorCases {
    private SearchErrorCases() {}

    private static final String VEC = "query q($v: Vector(3)) {\n  match { $p: Person }\n  return { $p.name as n }\n";

    static Stream<Arguments> cases() {
        return Stream.of(
                c("nearest on a non-vector", VEC + "  order { nearest($p.age, $v) }\n  limit 3\n}",
                        4, 22, "T15", "nearest(…) needs a Vector property, but p.age is I32"),
                c("nearest on a non-property", VEC + "  order { nearest($v, $v) }\n  limit 3\n}",
                        4, 19, "T15", "needs a Vector property ($var.prop)"),
                c("nearest dimension mismatch",
                        "query q($v: Vector(2)) {\n  match { $p: Person }\n  return { $p.name }\n"
                                + "  order { nearest($p.embedding, $v) }\n  limit 3\n}",
                        4, 33, "T15", "vector dimension mismatch: p.embedding is Vector(3) but $v is Vector(2)"),
                c("nearest literal of wrong length", VEC + "  order { nearest($p.embedding, [1.0, 2.0]) }\n  limit 3\n}",
                        4, 33, "T15", "expected Vector(3), got a list of 2 numbers"),
                c("nearest with a String query",
                        "query q($v: String) {\n  match { $p: Person }\n  return { $p.name }\n"
                                + "  order { nearest($p.embedding, $v) }\n  limit 3\n}",
                        4, 33, "T15", "needs a Vector(3) query, but $v is String"),
                c("nearest with a direction", VEC + "  order { nearest($p.embedding, $v) desc }\n  limit 3\n}",
                        4, 37, "T15", "takes no 'desc'"),
                c("nearest without limit", VEC + "  order { nearest($p.embedding, $v) }\n}",
                        4, 11, "T17", "ordering by nearest(…) needs a limit"),
                c("alias ordering with nearest", VEC + "  order { nearest($p.embedding, $v), n }\n  limit 3\n}",
                        4, 38, "T18", "ordering by alias 'n' cannot be combined with nearest(…)"),
                c("search on a non-String property",
                        "query q() {\n  match {\n    $p: Person\n    search($p.age, \"x\")\n  }\n  return { $p.name }\n}",
                        4, 12, "T19", "search(…) needs a String property, but p.age is I32"),
                c("search with an I64 parameter",
                        "query q($x: I64) {\n  match {\n    $p: Person\n    search($p.name, $x)\n  }\n  return { $p.name }\n}",
                        4, 21, "T19", "needs a String literal or String parameter as its query (parameter $x is I64)"),
                c("search with one argument",
                        "query q() {\n  match {\n    $p: Person\n    search($p.name)\n  }\n  return { $p.name }\n}",
                        4, 5, "T19", "search(…) takes 2 arguments, got 1"),
                c("fuzzy distance too large",
                        "query q() {\n  match {\n    $p: Person\n    fuzzy($p.name, \"x\", 3)\n  }\n  return { $p.name }\n}",
                        4, 25, "T19", "fuzzy distance must be between 0 and 2, got 3"),
                c("search compared",
                        "query q() {\n  match {\n    $p: Person\n    search($p.name, \"x\") = true\n  }\n  return { $p.name }\n}",
                        4, 26, "T19", "is a match clause of its own and cannot be compared"),
                c("search as a value",
                        "query q() {\n  match { $p: Person }\n  return { search($p.name, \"x\") }\n}",
                        3, 12, "T19", "search(…) is a match clause (a filter), not a value"),
                c("match_text on a list",
                        "query q() {\n  match {\n    $p: Person\n    match_text($p.tags, \"a b\")\n  }\n  return { $p.name }\n}",
                        4, 16, "T20", "match_text(…) needs a String property, but p.tags is [String]"),
                c("bm25 in a filter",
                        "query q() {\n  match {\n    $p: Person\n    bm25($p.name, \"x\") > 1\n  }\n  return { $p.name }\n}",
                        4, 5, "T20", "rankings are only allowed in return and order"),
                c("bm25 ascending",
                        "query q() {\n  match { $p: Person }\n  return { $p.name }\n  order { bm25($p.name, \"x\") asc }\n}",
                        4, 30, "T20", "bm25(…) orders best first (highest score); 'asc' is not allowed"),
                c("rrf without limit",
                        VEC + "  order { rrf(nearest($p.embedding, $v), bm25($p.name, \"x\")) }\n}",
                        4, 11, "T21", "ordering by rrf(…) needs a limit"),
                c("rrf with k = 0",
                        VEC + "  order { rrf(nearest($p.embedding, $v), bm25($p.name, \"x\"), 0) }\n  limit 3\n}",
                        4, 62, "T21", "rrf k must be a positive integer"),
                c("rrf over a property",
                        VEC + "  order { rrf($p.age, bm25($p.name, \"x\")) }\n  limit 3\n}",
                        4, 15, "T21", "each of its first two arguments must be nearest(…) or bm25(…)"),
                c("ranking in an aggregate query",
                        "query q() {\n  match { $p: Person }\n  return { count($p), bm25($p.name, \"x\") }\n}",
                        3, 23, "T9", "rankings (nearest, bm25, rrf) cannot be used in a query with aggregates"));
    }

    private static Arguments c(String name, String source, int line, int column, String code, String fragment) {
        return QueryErrorTest.c(name, source, line, column, code, fragment);
    }
}

package dev.omnigraph.engine.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.error.ErrorCode;
import dev.omnigraph.storage.error.ParseError;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every rejected form reports source "schema", the offending token's line/column, the declaration, and why. */
class SchemaErrorTest {

    static Stream<Arguments> cases() {
        return Stream.of(
                // name, source, line, column, subject, message fragment
                c("unknown property type", "node A {\n  x: Strin\n}", 2, 6, "node A.x", "unknown property type 'Strin'"),
                c("user type used as property type", "node B {}\nnode A {\n  b: B\n}", 3, 6, "node A.b", "unknown property type 'B'"),
                c("duplicate property", "node A {\n  x: String\n  x: I32\n}", 3, 3, "node A.x", "duplicate property 'x' (first declared at line 2)"),
                c("duplicate type", "node A { }\nedge A: A -> A", 2, 6, "edge A", "duplicate type name 'A' (already declared as node at line 1)"),
                c("card min greater than max", "node A {}\nedge E: A -> A @card(3..1)", 2, 25, "edge E", "@card minimum 3 is greater than maximum 1"),
                c("card out of u32 range", "node A {}\nedge E: A -> A @card(0..4294967296)", 2, 25, "edge E", "out of range"),
                c("card on a node", "node A @card(0..1) {}", 1, 8, "node A", "@card is only allowed"),
                c("key on a list", "node A {\n  tags: [String] @key\n}", 2, 18, "node A.tags", "cannot be a list"),
                c("key on a vector", "node A {\n  v: Vector(2)\n  @key(v)\n}", 3, 8, "node A", "cannot be a Vector"),
                c("key on nullable", "node A {\n  name: String?\n  @key(name)\n}", 3, 8, "node A", "'name' must not be nullable"),
                c("key on nullable interface property", "interface I {\n  x: String? @key\n}", 2, 14, "interface I.x", "must not be nullable"),
                c("property key on an edge", "node A {}\nedge E: A -> A {\n  k: String @key\n}", 3, 13, "edge E.k", "@key is not allowed on edges"),
                c("body key on an edge", "node A {}\nedge E: A -> A {\n  k: String\n  @key(k)\n}", 4, 3, "edge E", "edge bodies accept only @unique and @index constraints, found @key"),
                c("range on an edge", "node A {}\nedge E: A -> A {\n  w: F64\n  @range(w, 0..1)\n}", 4, 3, "edge E", "found @range"),
                c("two keys", "node A {\n  a: String @key\n  b: String\n  @key(b)\n}", 4, 3, "node A", "at most one @key"),
                c("unknown endpoint type", "node A {}\nedge E: A -> B", 2, 14, "edge E", "unknown node type 'B'"),
                c("interface as endpoint", "interface I { x: String }\nnode A {}\nedge E: I -> A", 3, 9, "edge E", "'I' is an interface"),
                c("unknown interface", "node A implements Missing { }", 1, 19, "node A", "unknown interface 'Missing'"),
                c("implementing a node", "node B {}\nnode A implements B {}", 2, 19, "node A", "'B' is a node, not an interface"),
                c("interface listed twice", "interface I { x: String }\nnode A implements I, I {}", 2, 22, "node A", "listed twice"),
                c("conflicting interface property types", "interface I { x: String }\ninterface J { x: I32 }\nnode A implements I, J {}", 3, 22, "node A", "conflicts with 'x: String' from interface I"),
                c("node redeclares inherited property with other type", "interface I { x: String }\nnode A implements I {\n  x: I64\n}", 3, 6, "node A.x", "'x: I64' conflicts with 'x: String'"),
                c("reserved id", "node A {\n  id: String\n}", 2, 3, "node A.id", "'id' is a reserved property name"),
                c("reserved src on an edge", "node A {}\nedge E: A -> A {\n  src: String\n}", 3, 3, "edge E.src", "reserved property name on edges"),
                c("reserved Lance virtual column", "node A {\n  _rowid: I64\n}", 2, 3, "node A._rowid", "Lance virtual column"),
                c("unique Blob", "node A {\n  data: Blob\n  @unique(data)\n}", 3, 11, "node A", "@unique is not allowed on Blob property 'data'"),
                c("list of Blob unsupported", "node A {\n  data: [Blob]?\n}", 2, 10, "node A.data", "lists of Blob are not supported"),
                c("vector of dimension zero", "node A {\n  v: Vector(0)\n}", 2, 13, "node A.v", "vector dimension must be between 1 and 2147483647"),
                c("vector dimension too large", "node A {\n  v: Vector(2147483648)\n}", 2, 13, "node A.v", "out of range"),
                c("list of vectors", "node A {\n  v: [Vector(3)]\n}", 2, 7, "node A.v", "list elements must be a base type"),
                c("empty enum", "node A {\n  e: enum()\n}", 2, 11, "node A.e", "expected an enum value"),
                c("unterminated string", "node A @description(\"oops {\n}", 1, 21, "node A", "unterminated string literal"),
                c("bad escape", "node A @description(\"a\\qb\") {}", 1, 23, "node A", "invalid escape '\\q'"),
                c("unterminated comment", "node A {}\n  /* never closed\nnode B {}", 2, 3, "", "unterminated block comment"),
                c("unexpected character", "node A {\n  x: String $\n}", 2, 13, "node A.x", "unexpected character '$'"),
                c("missing closing brace", "node A {\n  x: String\n", 3, 1, "node A", "expected '}' to close node A"),
                c("lowercase type name", "node person {}", 1, 6, "", "type names start with an uppercase letter"),
                c("unknown top-level keyword", "table T {}", 1, 1, "", "expected 'interface', 'node' or 'edge'"),
                c("range on a String", "node A {\n  s: String\n  @range(s, 0..1)\n}", 3, 10, "node A", "@range needs a numeric property; 's' is String"),
                c("range float bound on integer", "node A {\n  n: I32\n  @range(n, 0.5..2)\n}", 3, 13, "node A", "is not an integer"),
                c("range lower above upper", "node A {\n  n: I32\n  @range(n, 5..1)\n}", 3, 13, "node A", "lower bound is greater than the upper bound"),
                c("sign separated from number", "node A {\n  n: I32\n  @range(n, - 5..1)\n}", 3, 13, "node A", "'-' sign must be written directly"),
                c("bare range on a property", "node A {\n  n: I32 @range\n}", 2, 10, "node A.n", "@range needs arguments"),
                c("check on an I32", "node A {\n  n: I32\n  @check(n, \"x\")\n}", 3, 10, "node A", "@check needs a String property; 'n' is I32"),
                c("check without pattern", "node A {\n  s: String\n  @check(s)\n}", 3, 3, "node A", "@check expects (property, \"regex\")"),
                c("bad regex", "node A {\n  s: String\n  @check(s, \"[a-\")\n}", 3, 13, "node A", "invalid regular expression"),
                c("unique on a missing property", "node A {\n  s: String\n  @unique(t)\n}", 3, 11, "node A", "unknown property 't' in @unique"),
                c("index on a missing property", "node A {}\nedge E: A -> A {\n  @index(weight)\n}", 3, 10, "edge E", "unknown property 'weight' in @index"),
                c("key names a property twice", "node A {\n  s: String\n  @key(s, s)\n}", 3, 11, "node A", "appears twice in @key"),
                c("embed on a non-vector", "node A {\n  s: String @embed(\"s\")\n}", 2, 13, "node A.s", "@embed is only allowed on Vector properties"),
                c("embed source not a String", "node A {\n  n: I32\n  v: Vector(4) @embed(\"n\")\n}", 3, 23, "node A.v", "must be a String property"),
                c("embed source missing", "node A {\n  v: Vector(4) @embed(\"text\")\n}", 2, 23, "node A.v", "'text' is not a property of node A"),
                c("embed unknown keyword", "node A {\n  s: String\n  v: Vector(4) @embed(\"s\", dim=4)\n}", 3, 28, "node A.v", "only the keyword argument 'model'"),
                c("embed on an edge", "node A {}\nedge E: A -> A {\n  v: Vector(2) @embed(\"x\")\n}", 3, 16, "edge E.v", "@embed is not allowed on edges"),
                c("instruction on a property", "node A {\n  s: String @instruction(\"x\")\n}", 2, 13, "node A.s", "only allowed on node and edge types"),
                c("description without a string", "node A @description(3) {}", 1, 8, "node A", "@description takes exactly one string argument"),
                c("duplicate rename_from", "node A @rename_from(\"B\") @rename_from(\"C\") {}", 1, 26, "node A", "duplicate @rename_from"),
                c("key with arguments in a header", "node A @key(x) { x: String }", 1, 8, "node A", "is a body constraint"),
                c("annotation inside a body", "node A {\n  @description(\"x\")\n}", 2, 3, "node A", "expected a body constraint"),
                c("constraint inside an interface", "interface I {\n  x: String\n  @key(x)\n}", 3, 3, "interface I", "interface bodies accept only property declarations"),
                c("uppercase property name", "node A {\n  Name: String\n}", 2, 3, "node A", "property names must start with a lowercase letter"),
                c("edge without arrow", "node A {}\nedge E: A A", 2, 11, "edge E", "expected '->'"),
                c("NUL in a string literal", "node A {\n  x: String @description(\"a\u0000\")\n}", 2, 28, "node A.x",
                        "a NUL character (U+0000) is not allowed"),
                c("unpaired surrogate in an enum", "node A {\n  m: enum(a, \uD800)\n}", 2, 14, "node A.m",
                        "an unpaired surrogate (U+D800) is not allowed"),
                c("unpaired surrogate between tokens", "node A \uDC00 {}", 1, 8, "node A",
                        "an unpaired surrogate (U+DC00) is not allowed"));
    }

    @Test
    void emojiInSchemaStringsIsText() {
        CompiledSchema s = SchemaCompiler.compile("node A {\n  x: String @description(\"emoji \uD83D\uDE00\")\n}");
        assertThat(s.toString()).contains("emoji 😀");
    }

    @Test
    void sourceLongerThanTheLimitIsRefused() {
        String source = "node A { x: String }" + " ".repeat(SchemaCompiler.MAX_SOURCE_CHARS);
        assertThatThrownBy(() -> SchemaCompiler.compile(source)).isInstanceOfSatisfying(ResourceLimitExceeded.class,
                e -> assertThat(e.allowed()).isEqualTo(SchemaCompiler.MAX_SOURCE_CHARS));
        assertThat(SchemaCompiler.compile(source.substring(0, SchemaCompiler.MAX_SOURCE_CHARS))).isNotNull();
    }

    private static Arguments c(String name, String source, int line, int column, String subject, String fragment) {
        return Arguments.of(name, source, line, column, subject, fragment);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void rejectsWithPosition(String name, String source, int line, int column, String subject, String fragment) {
        assertThatThrownBy(() -> SchemaCompiler.compile(source))
                .isInstanceOfSatisfying(ParseError.class, e -> {
                    assertThat(e.code()).isEqualTo(ErrorCode.PARSE_ERROR);
                    assertThat(e.sourceName()).isEqualTo("schema");
                    assertThat(e.subject()).as("subject").isEqualTo(subject);
                    assertThat(e.line()).as("line").isEqualTo(line);
                    assertThat(e.column()).as("column").isEqualTo(column);
                    assertThat(e.getMessage()).contains(fragment);
                });
    }
}

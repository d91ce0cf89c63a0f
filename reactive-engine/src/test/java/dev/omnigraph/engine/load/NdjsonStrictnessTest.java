package dev.omnigraph.engine.load;

import static dev.omnigraph.engine.load.LoadFixture.CATALOG;
import static dev.omnigraph.engine.load.LoadFixture.bytes;
import static dev.omnigraph.engine.load.LoadFixture.reader;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.error.ParseError;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import dev.omnigraph.storage.error.ValidationError;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/** Each bad line sits on line 2 after a good one: the good record must come out, then the bad line's error. */
class NdjsonStrictnessTest {
    private static final String GOOD = "{\"type\":\"Note\",\"data\":{\"body\":\"fine\"}}";

    static Stream<Arguments> parseErrors() {
        return Stream.of(
                bad("malformed value", "{\"type\":\"Note\",\"data\":{\"body\":tru}}", "data.body"),
                bad("truncated object", "{\"type\":\"Note\",\"data\":{\"body\":\"x\"}", "data"),
                bad("blank line with spaces", "   \t ", ""),
                bad("top-level array", "[{\"type\":\"Note\"}]", ""),
                bad("content after the object", GOOD + " {}", ""),
                bad("both type and edge", "{\"type\":\"Note\",\"edge\":\"Knows\",\"data\":{\"body\":\"x\"}}", "edge"),
                bad("neither type nor edge", "{\"data\":{\"body\":\"x\"}}", "type"),
                bad("edge without from", "{\"edge\":\"Knows\",\"to\":\"b\"}", "from"),
                bad("edge without to", "{\"edge\":\"Knows\",\"from\":\"a\"}", "to"),
                bad("from not a string", "{\"edge\":\"Knows\",\"from\":1,\"to\":\"b\"}", "from"),
                bad("type not a string", "{\"type\":null}", "type"),
                bad("from on a node line", "{\"type\":\"Note\",\"from\":\"a\",\"data\":{\"body\":\"x\"}}", "from"),
                bad("unknown top-level key", "{\"type\":\"Note\",\"extra\":1,\"data\":{\"body\":\"x\"}}", "extra"),
                bad("duplicate top-level key", "{\"type\":\"Note\",\"type\":\"Note\"}", "type"),
                bad("duplicate key in data", "{\"type\":\"Note\",\"data\":{\"body\":\"x\",\"body\":\"y\"}}", "data.body"),
                bad("duplicate key nested in a list", "{\"type\":\"Person\",\"data\":{\"tags\":[{\"a\":1,\"a\":2}]}}",
                        "data.tags[0].a"),
                bad("reserved name in data", "{\"type\":\"Note\",\"data\":{\"body\":\"x\",\"_rowid\":1}}", "data._rowid"),
                bad("reserved name at top level", "{\"type\":\"Note\",\"_tombstone\":true}", "_tombstone"),
                bad("src in edge data", "{\"edge\":\"Knows\",\"from\":\"a\",\"to\":\"b\",\"data\":{\"src\":\"a\"}}", "data.src"),
                bad("dst in edge data before edge key", "{\"data\":{\"dst\":\"a\"},\"edge\":\"Knows\",\"from\":\"a\",\"to\":\"b\"}",
                        "data.dst"),
                bad("data not an object", "{\"type\":\"Note\",\"data\":[1]}", "data"),
                bad("data null", "{\"type\":\"Note\",\"data\":null}", "data"),
                bad("single-quoted string", "{\"type\":\"Note\",\"data\":{\"body\":'x'}}", "data.body"),
                bad("NaN literal", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"weight\":NaN}}", "data.weight"),
                bad("comment", "{\"type\":\"Note\"/*c*/,\"data\":{\"body\":\"x\"}}", "type"),
                // Text that is not valid Unicode, or holds a NUL, is refused naming where it is.
                bad("NUL in a data value", "{\"type\":\"Note\",\"data\":{\"body\":\"a\\u0000b\"}}", "data.body"),
                bad("lone surrogate in a data value", "{\"type\":\"Note\",\"data\":{\"body\":\"\\ud800\"}}", "data.body"),
                bad("lone surrogate in a list element", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"tags\":[\"ok\",\"\\udc00\"]}}",
                        "data.tags[1]"),
                bad("NUL in a supplied id", "{\"type\":\"Note\",\"data\":{\"id\":\"\\u0000\",\"body\":\"x\"}}", "data.id"),
                bad("NUL in a key property", "{\"type\":\"Person\",\"data\":{\"name\":\"a\\u0000\"}}", "data.name"),
                bad("lone surrogate in from", "{\"edge\":\"Knows\",\"from\":\"a\\udbff\",\"to\":\"b\"}", "from"),
                bad("NUL in to", "{\"edge\":\"Knows\",\"from\":\"a\",\"to\":\"\\u0000\"}", "to"),
                bad("NUL in the type name", "{\"type\":\"No\\u0000te\",\"data\":{\"body\":\"x\"}}", "type"),
                bad("NUL in a data key", "{\"type\":\"Note\",\"data\":{\"bo\\u0000dy\":\"x\"}}", "data"),
                bad("NUL in a top-level key", "{\"type\":\"Note\",\"\\u0000\":1}", ""),
                bad("NUL in a nested object", "{\"type\":\"Note\",\"data\":{\"body\":{\"k\":[\"\\u0000\"]}}}",
                        "data.body.k[0]"));
    }

    static Stream<Arguments> validationErrors() {
        return Stream.of(
                bad("unknown node type", "{\"type\":\"Nope\",\"data\":{}}", null),
                bad("node type is case-sensitive", "{\"type\":\"note\",\"data\":{\"body\":\"x\"}}", null),
                bad("unknown edge type", "{\"edge\":\"Likes\",\"from\":\"a\",\"to\":\"b\"}", null),
                bad("unknown property", "{\"type\":\"Note\",\"data\":{\"body\":\"x\",\"nope\":1}}", "nope"),
                bad("unknown edge property", "{\"edge\":\"Knows\",\"from\":\"a\",\"to\":\"b\",\"data\":{\"body\":1}}", "body"),
                bad("string for I32", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"age\":\"5\"}}", "age"),
                bad("float for I32", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"age\":5.0}}", "age"),
                bad("I32 above range", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"age\":2147483648}}", "age"),
                bad("I32 below range", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"age\":-2147483649}}", "age"),
                bad("U64 negative", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"big\":-1}}", "big"),
                bad("U64 above range", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"big\":18446744073709551616}}", "big"),
                bad("U32 above range", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"small\":4294967296}}", "small"),
                bad("I64 above range", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"count\":9223372036854775808}}", "count"),
                bad("F32 beyond float range", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"score\":1e39}}", "score"),
                bad("F64 overflow", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"weight\":1e400}}", "weight"),
                bad("string for F64", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"weight\":\"1\"}}", "weight"),
                bad("string for Bool", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"ok\":\"true\"}}", "ok"),
                bad("number for String", "{\"type\":\"Note\",\"data\":{\"body\":5}}", "body"),
                bad("bad date string", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"born\":\"2024-02-30\"}}", "born"),
                bad("date in another format", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"born\":\"01/03/2024\"}}", "born"),
                bad("float for Date", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"born\":1.5}}", "born"),
                bad("bad datetime string", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"seen\":\"yesterday\"}}", "seen"),
                bad("vector too short", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"v\":[1,2]}}", "v"),
                bad("vector too long", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"v\":[1,2,3,4]}}", "v"),
                bad("vector with a string", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"v\":[1,\"2\",3]}}", "v"),
                bad("vector not an array", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"v\":1}}", "v"),
                bad("list element of the wrong type", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"nums\":[1,\"2\"]}}", "nums"),
                bad("null list element", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"tags\":[\"x\",null]}}", "tags"),
                bad("scalar for a list", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"tags\":\"x\"}}", "tags"),
                bad("enum value not allowed", "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"mood\":\"angry\"}}", "mood"),
                bad("missing required property", "{\"type\":\"Note\",\"data\":{\"rank\":1}}", "body"),
                bad("missing data on a type with a required property", "{\"type\":\"Note\"}", "body"),
                bad("null for a required property", "{\"type\":\"Note\",\"data\":{\"body\":null}}", "body"),
                bad("missing key property", "{\"type\":\"Pair\",\"data\":{\"a\":\"x\"}}", "b"),
                bad("supplied id differs from the key", "{\"type\":\"Person\",\"data\":{\"id\":\"ann\",\"name\":\"Ann\"}}", "id"),
                bad("id that is not a string", "{\"type\":\"Note\",\"data\":{\"id\":7,\"body\":\"x\"}}", "id"));
    }

    private static Arguments bad(String name, String line, String field) {
        return Arguments.of(name, line, field);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("parseErrors")
    void parseErrorsNameLineAndField(String name, String line, String subject) {
        StepVerifier.create(reader().read(bytes(GOOD + "\n" + line + "\n" + GOOD + "\n")))
                .expectNextCount(1)
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(ParseError.class);
                    ParseError p = (ParseError) e;
                    assertThat(p.sourceName()).isEqualTo("ndjson");
                    assertThat(p.line()).isEqualTo(2);
                    assertThat(p.column()).isPositive();
                    assertThat(p.subject()).isEqualTo(subject);
                })
                .verify();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validationErrors")
    void validationErrorsNameLineAndProperty(String name, String line, String property) {
        StepVerifier.create(reader().read(bytes(GOOD + "\r\n" + line + "\r\n" + GOOD)))
                .expectNextCount(1)
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(ValidationError.class);
                    assertThat(e.getMessage()).startsWith("line 2: ");
                    assertThat(((ValidationError) e).property()).isEqualTo(property);
                })
                .verify();
    }

    @Test
    void columnsPointAtTheOffendingToken() {
        ParseError unknown = parseError("{\"type\":\"Note\",  \"extra\":1}");
        assertThat(unknown.column()).isEqualTo(18);
        ParseError malformed = parseError("{\"type\":\"Note\",\"data\":{\"body\":tru}}");
        assertThat(malformed.column()).isGreaterThan(30);
        ParseError dataNotObject = parseError("{\"type\":\"Note\",\"data\":5}");
        assertThat(dataNotObject.column()).isEqualTo(23);
    }

    @Test
    void messagesNameTheProblem() {
        assertThat(validationError("{\"type\":\"Person\",\"data\":{\"id\":\"ann\",\"name\":\"Ann\"}}").getMessage())
                .contains("'ann'", "'Ann'");
        ValidationError missing = validationError("{\"type\":\"Note\",\"data\":{}}");
        assertThat(missing.typeName()).isEqualTo("Note");
        assertThat(missing.getMessage()).contains("missing required property 'body'");
        assertThat(validationError("{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"v\":[1]}}").getMessage())
                .contains("expected 3", "got 1");
        assertThat(parseError("  ").getMessage()).contains("blank-but-not-empty");
        assertThat(parseError("{\"type\":\"Note\"").getMessage()).contains("end-of-input").doesNotContain("Source:");
    }

    @Test
    void invalidUtf8AndNonUtf8EncodingsAreRefused() {
        byte[] good = (GOOD + "\n").getBytes(StandardCharsets.UTF_8);
        byte[] badUtf8 = "{\"type\":\"Note\",\"data\":{\"body\":\"\u00ff\"}}".getBytes(StandardCharsets.ISO_8859_1);
        byte[] utf16 = "{\"type\":\"Note\",\"data\":{\"body\":\"x\"}}".getBytes(StandardCharsets.UTF_16LE);
        byte[] bom = ("\uFEFF" + GOOD).getBytes(StandardCharsets.UTF_8);
        for (byte[] bad : new byte[][] {badUtf8, utf16, bom}) {
            StepVerifier.create(reader().read(Flux.just(ByteBuffer.wrap(good), ByteBuffer.wrap(bad))))
                    .expectNextCount(1)
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(ParseError.class,
                            p -> assertThat(p.line()).isEqualTo(2)))
                    .verify();
        }
    }

    @Test
    void textRuleMessagesArePrintableAndPositioned() {
        ParseError nul = parseError("{\"type\":\"Note\",\"data\":{\"body\":\"a\\u0000b\"}}");
        assertThat(nul.column()).as("the column of the key").isEqualTo(24);
        assertThat(nul.getMessage()).contains("[data.body] the value contains a NUL character (U+0000) at character 2")
                .doesNotContain("\u0000");
        assertThat(parseError("{\"type\":\"Note\",\"data\":{\"x\\u0000\":1}}").getMessage())
                .contains("[data] a key contains a NUL character (U+0000) at character 2").doesNotContain("\u0000");
        assertThat(parseError("{\"type\":\"Note\",\"data\":{\"body\":\"x\\udfff\"}}").getMessage())
                .contains("[data.body] the value contains an unpaired surrogate (U+DFFF) at character 2")
                .doesNotContain("\udfff");
        // Raw bytes ED A0 80 spell U+D800 in CESU-8, not UTF-8: refused as well, whichever check sees it first.
        byte[] line = LoadFixture.noteWithRawSurrogate();
        StepVerifier.create(reader().read(Flux.just(ByteBuffer.wrap(line))))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(ParseError.class,
                        p -> assertThat(p.subject()).isEqualTo("data.body")))
                .verify();
    }

    @Test
    void emojiPassesUntouchedInValuesIdsAndEndpoints() {
        String text = "{\"type\":\"Person\",\"data\":{\"name\":\"emoji 😀\",\"tags\":[\"🎉\"]}}\n"
                + "{\"type\":\"Note\",\"data\":{\"id\":\"n😀\",\"body\":\"\\ud83d\\ude00\"}}\n"
                + "{\"edge\":\"Knows\",\"from\":\"emoji 😀\",\"to\":\"🙂\"}\n";
        var records = reader().read(bytes(text)).collectList().block();
        assertThat(((LoadRecord.NodeRecord) records.get(0)).id()).isEqualTo("emoji \uD83D\uDE00");
        assertThat(((LoadRecord.NodeRecord) records.get(0)).values()).containsEntry("tags", java.util.List.of("🎉"));
        assertThat(((LoadRecord.NodeRecord) records.get(1)).id()).isEqualTo("n😀");
        assertThat(((LoadRecord.NodeRecord) records.get(1)).values()).containsEntry("body", "😀");
        assertThat(((LoadRecord.EdgeRecord) records.get(2)).src()).isEqualTo("emoji 😀");
    }

    @Test
    void lineByteCapCountsTheLineWithoutItsTerminator() {
        String exact = padded(64);
        assertThat(exact.getBytes(StandardCharsets.UTF_8)).hasSize(64);
        NdjsonReader reader = new NdjsonReader(CATALOG, 64);
        StepVerifier.create(reader.read(bytes(exact + "\r\n" + exact + "\n" + exact))).expectNextCount(3).verifyComplete();
        StepVerifier.create(reader.read(bytes(exact + "\n\n" + padded(65) + "\n" + exact)))
                .expectNextCount(1)
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(ResourceLimitExceeded.class);
                    ResourceLimitExceeded r = (ResourceLimitExceeded) e;
                    assertThat(r.limit()).isEqualTo("graph_batch_line_bytes");
                    assertThat(r.allowed()).isEqualTo(64);
                    assertThat(r.actual()).isGreaterThan(64);
                    assertThat(r.getMessage()).contains("line 3 ");
                })
                .verify();
        // An over-long final line without a newline is refused too.
        StepVerifier.create(reader.read(bytes(padded(65) + "\r"))).expectError(ResourceLimitExceeded.class).verify();
    }

    @Test
    void anEndlessLineIsRefusedWithoutDrainingTheSource() {
        AtomicInteger pulled = new AtomicInteger();
        Flux<ByteBuffer> endless = Flux.<ByteBuffer>generate(sink -> sink.next(ByteBuffer.wrap(new byte[100])))
                .doOnNext(b -> pulled.incrementAndGet());
        StepVerifier.create(new NdjsonReader(CATALOG, 1000).read(endless))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(ResourceLimitExceeded.class)
                        .hasMessageContaining("line 1 "))
                .verify();
        assertThat(pulled.get()).isBetween(11, 13);
    }

    private static String padded(int bytes) {
        String head = "{\"type\":\"Note\",\"data\":{\"body\":\"";
        String tail = "\"}}";
        return head + "x".repeat(bytes - head.length() - tail.length()) + tail;
    }

    private static ParseError parseError(String line) {
        return (ParseError) errorOf(line);
    }

    private static ValidationError validationError(String line) {
        return (ValidationError) errorOf(line);
    }

    private static Throwable errorOf(String line) {
        Throwable[] seen = new Throwable[1];
        StepVerifier.create(reader().read(bytes(line))).expectErrorSatisfies(e -> seen[0] = e).verify();
        return seen[0];
    }
}

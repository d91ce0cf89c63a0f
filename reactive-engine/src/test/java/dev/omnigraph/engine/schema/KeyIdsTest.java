package dev.omnigraph.engine.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.error.ValidationError;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KeyIdsTest {
    static final String SRC = """
            node User { email: String @key  nick: String? }
            node Person {
                last: String
                first: String
                born: Date
                @key(first, born, last)
            }
            node Event { at: DateTime @key }
            node Reading { v64: F64 @key }
            node Sample { v32: F32 @key }
            node Counter { n: U64 @key }
            node Small { n: I32 @key }
            node Flag { on: Bool @key }
            node Mood { m: enum(happy, sad) @key }
            node Mixed { s: String  n: I64  @key(s, n) }
            node Free { x: String }
            """;

    private static final Catalog CATALOG;

    static {
        CompiledSchema s = SchemaCompiler.compile(SRC);
        CATALOG = Catalog.build(SchemaIr.initial(s, SchemaIrTest.DOMAIN), s);
    }

    private static String id(String type, Object... kv) {
        Map<String, Object> values = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) values.put((String) kv[i], kv[i + 1]);
        return CATALOG.deriveNodeId(type, values);
    }

    @Test
    void singleStringKeyIsVerbatim() {
        assertThat(id("User", "email", "ada@example.org", "nick", "ada")).isEqualTo("ada@example.org");
        assertThat(id("User", "email", "with \"quotes\"")).isEqualTo("with \"quotes\"");
    }

    @Test
    void compositeKeyIsAJsonArrayOrderedByStablePropertyId() {
        // declared (last, first, born), keyed (first, born, last); stable ids follow names: born < first < last
        NodeTable person = CATALOG.node("Person").orElseThrow();
        assertThat(person.keyPropertiesByStableId()).extracting(Property::name).containsExactly("born", "first", "last");
        assertThat(id("Person", "first", "Ada", "last", "Lovelace", "born", LocalDate.of(2024, 1, 1)))
                .isEqualTo("[\"19723\",\"Ada\",\"Lovelace\"]");
        assertThat(person.deriveId(Map.of("first", "A\"b", "last", "x\ny\u0001", "born", LocalDate.of(1970, 1, 2))))
                .isEqualTo("[\"1\",\"A\\\"b\",\"x\\ny\\u0001\"]");
        // key written (s, n) but n has the smaller stable id
        assertThat(id("Mixed", "s", "a", "n", 1L)).isEqualTo("[\"1\",\"a\"]");
    }

    @Test
    void derivationFromTheIrAloneMatchesTheCatalog() {
        CompiledSchema s = SchemaCompiler.compile(SRC);
        SchemaIr ir = SchemaIr.initial(s, SchemaIrTest.DOMAIN);
        Map<String, Long> ids = new HashMap<>();
        ir.node("Mixed").orElseThrow().properties().forEach(p -> ids.put(p.name(), p.propertyId()));
        assertThat(KeyIds.derive(s.node("Mixed").orElseThrow(), ids, Map.of("s", "a", "n", 7L)))
                .isEqualTo(id("Mixed", "s", "a", "n", 7L))
                .isEqualTo("[\"7\",\"a\"]");
        // swapping the stable ids swaps the component order
        Map<String, Long> swapped = Map.of("s", ids.get("n"), "n", ids.get("s"));
        assertThat(KeyIds.derive(s.node("Mixed").orElseThrow(), swapped, Map.of("s", "a", "n", 7L)))
                .isEqualTo("[\"a\",\"7\"]");
    }

    @Test
    void datesAndDateTimesUseTheirStoredIntegers() {
        assertThat(id("Person", "first", "a", "last", "b", "born", LocalDate.of(1969, 12, 31))).isEqualTo("[\"-1\",\"a\",\"b\"]");
        assertThat(id("Event", "at", Instant.parse("2024-01-01T00:00:00.123Z"))).isEqualTo("1704067200123");
        // sub-millisecond precision is floored to the stored millisecond, also before the epoch
        assertThat(id("Event", "at", Instant.parse("1969-12-31T23:59:59.9995Z"))).isEqualTo("-1");
    }

    @Test
    void floatsUseTheShortestSpellingOfTheirStoredWidth() {
        assertThat(id("Reading", "v64", 1.0)).isEqualTo("1");
        assertThat(id("Reading", "v64", 0.1)).isEqualTo("0.1");
        assertThat(id("Reading", "v64", -2.5)).isEqualTo("-2.5");
        assertThat(id("Reading", "v64", 1e21)).isEqualTo("1000000000000000000000");
        assertThat(id("Reading", "v64", 1e-7)).isEqualTo("0.0000001");
        assertThat(id("Reading", "v64", 123456.789)).isEqualTo("123456.789");
        // Java 17's Double.toString says 4.9E-324; the shortest round-trip spelling is 5e-324
        assertThat(id("Reading", "v64", Double.MIN_VALUE)).isEqualTo("0." + "0".repeat(323) + "5");
        // F32 uses float width: 0.1f is not spelled as the double 0.10000000149011612
        assertThat(id("Sample", "v32", 0.1f)).isEqualTo("0.1");
        assertThat(id("Sample", "v32", 16777217f)).isEqualTo("16777216");
        assertThat(id("Sample", "v32", Float.MAX_VALUE)).isEqualTo("340282350000000000000000000000000000000");
        assertThat(KeyIds.formatF32(1.0e-45f)).isEqualTo("0." + "0".repeat(44) + "1");
    }

    @Test
    void bothZerosAreSpelledZero() {
        assertThat(id("Reading", "v64", -0.0)).isEqualTo("0");
        assertThat(id("Reading", "v64", 0.0)).isEqualTo("0");
        assertThat(id("Sample", "v32", -0.0f)).isEqualTo("0");
    }

    @Test
    void integersAndBooleans() {
        assertThat(id("Counter", "n", -1L)).isEqualTo("18446744073709551615");
        assertThat(id("Counter", "n", new BigInteger("18446744073709551614"))).isEqualTo("18446744073709551614");
        assertThat(id("Small", "n", -5)).isEqualTo("-5");
        assertThat(id("Flag", "on", true)).isEqualTo("true");
        assertThat(id("Mood", "m", "sad")).isEqualTo("sad");
    }

    @Test
    void nanAndInfinityAreRejected() {
        assertThatThrownBy(() -> id("Reading", "v64", Double.NaN))
                .isInstanceOfSatisfying(ValidationError.class, e -> {
                    assertThat(e.typeName()).isEqualTo("Reading");
                    assertThat(e.property()).isEqualTo("v64");
                    assertThat(e.getMessage()).contains("finite");
                });
        assertThatThrownBy(() -> id("Sample", "v32", Float.NEGATIVE_INFINITY))
                .isInstanceOf(ValidationError.class).hasMessageContaining("finite");
    }

    @Test
    void nullMissingAndMistypedValuesAreRejected() {
        assertThatThrownBy(() -> id("User", "nick", "x"))
                .isInstanceOfSatisfying(ValidationError.class, e -> {
                    assertThat(e.property()).isEqualTo("email");
                    assertThat(e.getMessage()).contains("null or missing");
                });
        assertThatThrownBy(() -> id("Person", "first", "a", "last", "b", "born", "2024-01-01"))
                .isInstanceOf(ValidationError.class).hasMessageContaining("LocalDate");
        assertThatThrownBy(() -> id("Small", "n", 1L << 40))
                .isInstanceOf(ValidationError.class).hasMessageContaining("out of range");
        assertThatThrownBy(() -> id("Mood", "m", "angry"))
                .isInstanceOf(ValidationError.class).hasMessageContaining("is not a value of enum(happy, sad)");
    }

    @Test
    void unkeyedOrUnknownTypesHaveNoDerivedId() {
        assertThatThrownBy(() -> id("Free", "x", "a")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no @key");
        assertThatThrownBy(() -> id("Nope")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void nonKeyablePropertyTypesAreRejectedByCanonical() {
        Property list = new Property("xs", new PropertyType.ListOf(ScalarKind.I64), false);
        assertThatThrownBy(() -> KeyIds.canonical("T", list, List.of(1L)))
                .isInstanceOf(ValidationError.class).hasMessageContaining("cannot be part of a key");
    }
}

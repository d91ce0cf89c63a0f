package dev.omnigraph.engine.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.error.BadRequest;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Binding JSON-shaped caller values to declared parameters. */
class ParamBinderTest {
    static final List<ParamDecl> DECLS = QueryCompiler.parse("""
            query q($s: String, $b: Bool?, $i: I32?, $l: I64?, $u32: U32?, $u64: U64?, $f: F32?, $d: F64?,
                    $day: Date?, $at: DateTime?, $tags: [String]?, $v: Vector(3)?) {
              delete Person where name = $s
            }
            """).query("q").params();

    private static Map<String, Object> with(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        m.put("s", "x");
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    private static Object bound(String name, Object raw) {
        return QueryCompiler.bind(DECLS, with(name, raw)).get(name);
    }

    @Test
    void convertsJsonValuesToEngineTypes() {
        assertThat(bound("b", true)).isEqualTo(true);
        assertThat(bound("i", 7)).isEqualTo(7);
        assertThat(bound("i", 7L)).isEqualTo(7);
        assertThat(bound("l", 7)).isEqualTo(7L);
        assertThat(bound("u32", 4_294_967_295L)).isEqualTo(4_294_967_295L);
        assertThat(bound("u64", new BigInteger("18446744073709551615"))).isEqualTo(-1L);
        assertThat(bound("f", 1.5d)).isEqualTo(1.5f);
        assertThat(bound("d", 2)).isEqualTo(2.0d);
        assertThat(bound("day", "2024-03-01")).isEqualTo(LocalDate.of(2024, 3, 1));
        assertThat(bound("day", 1)).isEqualTo(LocalDate.of(1970, 1, 2));
        assertThat(bound("at", "2024-03-01T10:00:00.123456+01:00")).isEqualTo(Instant.parse("2024-03-01T09:00:00.123Z"));
        assertThat(bound("at", 1_000L)).isEqualTo(Instant.ofEpochMilli(1_000));
        assertThat(bound("tags", List.of("a", "b"))).isEqualTo(List.of("a", "b"));
        assertThat(bound("v", List.of(1, 2.5d, 3L))).isEqualTo(List.of(1f, 2.5f, 3f));
    }

    @Test
    void optionalParamsMayBeAbsentOrNullAndDollarPrefixesAreAccepted() {
        Map<String, Object> raw = new HashMap<>();
        raw.put("$s", "x");
        raw.put("i", null);
        BoundParams p = QueryCompiler.bind(DECLS, raw);
        assertThat(p.get("s")).isEqualTo("x");
        assertThat(p.get("i")).isNull();
        assertThat(p.get("v")).isNull();
        assertThat(p.asMap()).containsKeys("s", "b", "v");
    }

    @Test
    void refusesValuesOfTheWrongShapeNamingTheParam() {
        assertThatThrownBy(() -> bound("l", "x")).isInstanceOf(BadRequest.class)
                .hasMessage("param $l: expected I64, got string \"x\"");
        assertThatThrownBy(() -> bound("i", 3_000_000_000L)).isInstanceOf(BadRequest.class)
                .hasMessage("param $i: expected I32, got integer 3000000000 (out of range)");
        assertThatThrownBy(() -> bound("u32", -1)).hasMessage("param $u32: expected U32, got integer -1 (out of range)");
        assertThatThrownBy(() -> bound("l", 1.5d)).hasMessage("param $l: expected I64, got number 1.5");
        assertThatThrownBy(() -> bound("b", "true")).hasMessage("param $b: expected Bool, got string \"true\"");
        assertThatThrownBy(() -> bound("f", 1e300)).hasMessageContaining("param $f: expected F32, got number 1.0E300 (not a finite F32)");
        assertThatThrownBy(() -> bound("day", "03/01/2024")).hasMessageContaining("param $day: expected Date, got string \"03/01/2024\"");
        assertThatThrownBy(() -> bound("at", "yesterday")).hasMessageContaining("param $at: expected DateTime");
        assertThatThrownBy(() -> bound("v", List.of(1, 2))).hasMessage("param $v: expected Vector(3), got a list of 2 numbers");
        assertThatThrownBy(() -> bound("v", List.of(1, "a", 2))).hasMessageContaining("element 1 of Vector(3): expected a number");
        assertThatThrownBy(() -> bound("tags", List.of("a", 3))).hasMessage("param $tags: element 1: expected String, got integer 3");
        assertThatThrownBy(() -> bound("tags", Arrays.asList("a", null))).hasMessageContaining("element 1 of [String] is null");
        assertThatThrownBy(() -> bound("tags", "a")).hasMessage("param $tags: expected [String], got string \"a\"");
    }

    @Test
    void refusesMissingNullAndUnknownParams() {
        assertThatThrownBy(() -> QueryCompiler.bind(DECLS, Map.of())).isInstanceOf(BadRequest.class)
                .hasMessage("missing required param $s (String)");
        Map<String, Object> nullS = new HashMap<>();
        nullS.put("s", null);
        assertThatThrownBy(() -> QueryCompiler.bind(DECLS, nullS)).hasMessage("param $s: expected String, got null");
        assertThatThrownBy(() -> QueryCompiler.bind(DECLS, with("extra", 1))).isInstanceOf(BadRequest.class)
                .hasMessageStartingWith("unknown param $extra (declared: $s, $b, $i");
        assertThatThrownBy(() -> QueryCompiler.bind(List.of(), Map.of("x", 1))).hasMessage("unknown param $x (the query declares no parameters)");
        assertThatThrownBy(() -> QueryCompiler.bind(DECLS, Map.of("s", "a", "$s", "b"))).hasMessage("param $s is given twice");
    }
}

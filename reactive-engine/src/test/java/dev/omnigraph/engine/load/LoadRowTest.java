package dev.omnigraph.engine.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.load.LoadRecord.EdgeRecord;
import dev.omnigraph.engine.load.LoadRecord.NodeRecord;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A load row reads as the map the batch used to build by copying: values plus id (and src, dst). */
class LoadRowTest {

    @Test
    void aNodeRowIsItsValuesPlusItsId() {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("name", "a");
        values.put("age", null);
        Map<String, Object> row = new LoadRow(new NodeRecord(3, "Person", "p-a", values));
        Map<String, Object> expected = new HashMap<>(values);
        expected.put("id", "p-a");
        assertThat(row).isEqualTo(expected).hasSize(3).containsKey("age").doesNotContainKey("src");
        assertThat(row.get("id")).isEqualTo("p-a");
        assertThat(row.get("src")).isNull();
        assertThat(row.hashCode()).isEqualTo(expected.hashCode());
    }

    @Test
    void anEdgeRowAddsItsEndpoints() {
        Map<String, Object> values = Map.of("since", 2020);
        Map<String, Object> row = new LoadRow(new EdgeRecord(4, "Knows", "e1", "p-a", "p-b", values));
        assertThat(row).isEqualTo(Map.of("id", "e1", "src", "p-a", "dst", "p-b", "since", 2020));
        assertThat(row.keySet()).containsExactlyInAnyOrder("id", "src", "dst", "since");
        assertThat(row.values()).containsExactlyInAnyOrder("e1", "p-a", "p-b", 2020);
    }

    @Test
    void aRowCannotBeChanged() {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("name", "a");
        Map<String, Object> row = new LoadRow(new NodeRecord(1, "Person", "p-a", values));
        values.put("name", "changed after the record was made");
        assertThat(row.get("name")).isEqualTo("a");
        assertThatThrownBy(() -> row.put("id", "x")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> row.entrySet().iterator().next().setValue("x"))
                .isInstanceOf(UnsupportedOperationException.class);
        var entries = row.entrySet().iterator();
        entries.next();
        assertThatThrownBy(() -> entries.next().setValue("x")).isInstanceOf(UnsupportedOperationException.class);
    }
}

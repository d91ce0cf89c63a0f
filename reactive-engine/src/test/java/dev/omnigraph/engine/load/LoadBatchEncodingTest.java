package dev.omnigraph.engine.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.write.WriteLimits;
import dev.omnigraph.storage.PreparedColumns;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A load batch encodes each table's rows column by column as they arrive and hands the columns to the table's first
 * row, where the staging finds them; a table whose rows it cannot encode in order keeps the row maps only.
 */
class LoadBatchEncodingTest {
    private static LoadBatch collect(LoadMode mode, String ndjson) {
        return LoadBatch.collect(LoadFixture.reader().read(LoadFixture.bytes(ndjson)), LoadFixture.CATALOG, mode,
                WriteLimits.DEFAULT).block();
    }

    private static PreparedColumns columnsOf(LoadBatch batch, String tableKey) {
        LinkedHashMap<String, Map<String, Object>> rows = batch.rowsByTable().get(tableKey);
        return ((PreparedColumns.Carrier) rows.values().iterator().next()).preparedColumns();
    }

    @Test
    void eachTableOfScalarColumnsGetsItsRowsEncoded() {
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 700; i++) {
            lines.append("{\"type\":\"Note\",\"data\":{\"body\":\"n\u00f6te ").append(i).append("\"")
                    .append(i % 2 == 0 ? ",\"rank\":" + i : "").append("}}\n");
            lines.append("{\"edge\":\"Knows\",\"from\":\"a\",\"to\":\"b\",\"data\":{\"since\":\"2020-01-0")
                    .append(1 + i % 9).append("\",\"strength\":0.5}}\n");
        }
        LoadBatch batch = collect(LoadMode.APPEND, lines.toString());
        assertThat(columnsOf(batch, "node:Note").rowCount()).isEqualTo(700);
        assertThat(columnsOf(batch, "edge:Knows").rowCount()).isEqualTo(700);
        // Only the first row carries them.
        assertThat(batch.rowsByTable().get("node:Note").values().stream().skip(1)
                .map(row -> ((PreparedColumns.Carrier) row).preparedColumns())).containsOnlyNulls();
    }

    @Test
    void aTypeWithColumnsLeftToArrowRowsOrRowsReorderedKeepsTheRowMapsOnly() {
        LoadBatch lists = collect(LoadMode.APPEND, "{\"type\":\"Person\",\"data\":{\"name\":\"a\",\"tags\":[\"x\"]}}\n");
        assertThat(columnsOf(lists, "node:Person")).as("list and vector columns").isNull();

        LoadBatch repeated = collect(LoadMode.MERGE, """
                {"type":"Note","data":{"id":"n1","body":"first"}}
                {"type":"Note","data":{"id":"n2","body":"second"}}
                {"type":"Note","data":{"id":"n1","body":"last wins, placed last"}}
                """);
        assertThat(repeated.rowsByTable().get("node:Note").keySet()).containsExactly("n2", "n1");
        assertThat(columnsOf(repeated, "node:Note")).as("a repeated id reorders the rows").isNull();
    }
}

package dev.omnigraph.http.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.http.wire.Json;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** Plain-text renderings of query rows: an aligned table and RFC 4180 CSV. */
final class RowFormats {
    private RowFormats() {
    }

    static void table(PrintStream out, List<String> columns, List<List<Object>> rows) {
        List<List<String>> cells = new ArrayList<>();
        int[] widths = new int[columns.size()];
        for (int i = 0; i < columns.size(); i++) widths[i] = columns.get(i).length();
        for (List<Object> row : rows) {
            List<String> line = new ArrayList<>();
            for (int i = 0; i < columns.size(); i++) {
                String cell = cell(i < row.size() ? row.get(i) : null);
                widths[i] = Math.max(widths[i], cell.length());
                line.add(cell);
            }
            cells.add(line);
        }
        out.println(line(columns, widths));
        List<String> rule = new ArrayList<>();
        for (int width : widths) rule.add("-".repeat(width));
        out.println(line(rule, widths));
        cells.forEach(line -> out.println(line(line, widths)));
    }

    static void csv(PrintStream out, List<String> columns, List<List<Object>> rows) {
        out.println(String.join(",", columns.stream().map(RowFormats::quote).toList()));
        for (List<Object> row : rows) {
            List<String> line = new ArrayList<>();
            for (int i = 0; i < columns.size(); i++) line.add(quote(cell(i < row.size() ? row.get(i) : null)));
            out.println(String.join(",", line));
        }
    }

    /** A cell as text: strings bare, nulls empty, lists and the rest as their JSON spelling. */
    static String cell(Object value) {
        if (value == null) return "";
        JsonNode node = Json.value(value);
        return node.isTextual() ? node.asText() : Json.text(node);
    }

    private static String line(List<String> cells, int[] widths) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) out.append("  ");
            String cell = cells.get(i);
            out.append(cell);
            if (i < cells.size() - 1) out.append(" ".repeat(widths[i] - cell.length()));
        }
        return out.toString();
    }

    private static String quote(String cell) {
        if (cell.contains(",") || cell.contains("\"") || cell.contains("\n") || cell.contains("\r")) {
            return "\"" + cell.replace("\"", "\"\"") + "\"";
        }
        return cell;
    }
}

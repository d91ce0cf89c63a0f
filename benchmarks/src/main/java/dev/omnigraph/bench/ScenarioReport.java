package dev.omnigraph.bench;

import dev.omnigraph.storage.StorageCallCounter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The result of one scenario: its rows, free-text observations, and the Markdown and JSON renderings. A row's
 * ratio is its median over the median of the row it names as {@code compareTo}, both measured in this run.
 */
public final class ScenarioReport {
    private final String scenario;
    private final String description;
    private final List<Series> rows = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private String unit = "ms";

    public ScenarioReport(String scenario, String description) {
        this.scenario = scenario;
        this.description = description;
    }

    public String scenario() {
        return scenario;
    }

    public Series row(String name, String compareTo) {
        Series series = new Series(name, compareTo);
        rows.add(series);
        return series;
    }

    public List<Series> rows() {
        return List.copyOf(rows);
    }

    public void note(String text) {
        notes.add(text);
    }

    public List<String> notes() {
        return List.copyOf(notes);
    }

    /** What the samples of this scenario measure per repetition (e.g. "ms per load of 100,000 entities"). */
    public ScenarioReport unit(String text) {
        this.unit = text;
        return this;
    }

    Optional<Series> find(String name) {
        return rows.stream().filter(r -> r.name().equals(name)).findFirst();
    }

    /** "baseline", or "3.42× #1" (median over the median of row #1); "n/a" when either has no samples. */
    String ratio(Series row) {
        if (row.compareTo() == null) {
            return "baseline";
        }
        return find(row.compareTo()).filter(b -> !b.samples().isEmpty() && !row.samples().isEmpty())
                .map(b -> fmt(row.median() / b.median()) + "× #" + (rows.indexOf(b) + 1))
                .orElse("n/a (" + row.compareTo() + " not measured)");
    }

    Double ratioValue(Series row) {
        if (row.compareTo() == null) {
            return 1.0;
        }
        return find(row.compareTo()).filter(b -> !b.samples().isEmpty() && !row.samples().isEmpty())
                .map(b -> row.median() / b.median()).orElse(null);
    }

    public String toMarkdown() {
        StringBuilder out = new StringBuilder();
        out.append("### ").append(scenario).append("\n\n").append(description).append("\n\n");
        out.append("Samples: ").append(unit).append(".\n\n");
        out.append("| # | series | reps | median | p90 | p99 | min | max | ratio (median) | storage calls/op | storage ms/op | notes |\n");
        out.append("|---:|---|---:|---:|---:|---:|---:|---:|---|---|---|---|\n");
        for (Series row : rows) {
            List<Double> s = row.samples();
            out.append("| ").append(rows.indexOf(row) + 1).append(" | ").append(row.name())
                    .append(" | ").append(s.size())
                    .append(" | ").append(fmt(Stats.median(s)))
                    .append(" | ").append(fmt(Stats.percentile(s, 90)))
                    .append(" | ").append(fmt(Stats.percentile(s, 99)))
                    .append(" | ").append(fmt(Stats.min(s)))
                    .append(" | ").append(fmt(Stats.max(s)))
                    .append(" | ").append(ratio(row))
                    .append(" | ").append(callsCell(row.callsPerOp()))
                    .append(" | ").append(timeCell(row.storageMsPerOp()))
                    .append(" | ").append(String.join("; ", row.notes()))
                    .append(" |\n");
        }
        if (!notes.isEmpty()) {
            out.append('\n');
            notes.forEach(note -> out.append("- ").append(note).append('\n'));
        }
        return out.toString();
    }

    /** "23 (open 6, scan 4, …)": the total first, then each class, so growth is visible at a glance. */
    static String callsCell(Map<String, Double> perOp) {
        if (perOp.isEmpty()) {
            return "–";
        }
        double total = perOp.entrySet().stream()
                .filter(e -> !StorageCallCounter.Call.isVolumeLabel(e.getKey()) && !e.getKey().endsWith(".rows")) // volumes, not calls
                .mapToDouble(Map.Entry::getValue).sum();
        String parts = perOp.entrySet().stream()
                .map(e -> e.getKey() + " " + fmt(e.getValue()))
                .collect(Collectors.joining(", "));
        return fmt(total) + " (" + parts + ")";
    }

    /** "41.2 (scan 30.1, commit 6.0, …)": storage time per operation, largest classes first, top five. */
    static String timeCell(Map<String, Double> msPerOp) {
        if (msPerOp.isEmpty()) {
            return "–";
        }
        double total = msPerOp.values().stream().mapToDouble(Double::doubleValue).sum();
        String parts = msPerOp.entrySet().stream()
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .limit(5)
                .map(e -> e.getKey() + " " + fmt(e.getValue()))
                .collect(Collectors.joining(", "));
        return fmt(total) + " (" + parts + ")";
    }

    public Map<String, Object> toJson() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("scenario", scenario);
        out.put("description", description);
        out.put("unit", unit);
        List<Map<String, Object>> jsonRows = new ArrayList<>();
        for (Series row : rows) {
            List<Double> s = row.samples();
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("name", row.name());
            r.put("compareTo", row.compareTo());
            r.put("repetitions", s.size());
            r.put("median", finite(Stats.median(s)));
            r.put("p90", finite(Stats.percentile(s, 90)));
            r.put("p99", finite(Stats.percentile(s, 99)));
            r.put("min", finite(Stats.min(s)));
            r.put("max", finite(Stats.max(s)));
            r.put("ratio", ratioValue(row));
            r.put("operations", row.operations());
            r.put("callsPerOp", row.callsPerOp());
            r.put("storageMsPerOp", row.storageMsPerOp());
            r.put("notes", row.notes());
            r.put("samples", s);
            jsonRows.add(r);
        }
        out.put("rows", jsonRows);
        out.put("notes", notes);
        return out;
    }

    private static Double finite(double value) {
        return Double.isFinite(value) ? value : null;
    }

    static String fmt(double value) {
        if (!Double.isFinite(value)) {
            return "–";
        }
        if (Math.abs(value) >= 100) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        if (Math.abs(value) >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        return String.format(Locale.ROOT, "%.2f", value);
    }
}

package dev.omnigraph.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The scenario runner behind {@code bin/omnigraph-bench}: runs the named scenarios (all by default), prints a
 * Markdown table per scenario, and writes each table with its raw samples as JSON under
 * {@code <out>/<run-id>/}, plus {@code summary.md}. {@code jmh …} hands over to JMH's own runner.
 */
public final class BenchMain {
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("jmh")) {
            org.openjdk.jmh.Main.main(jmhArgs(Arrays.copyOfRange(args, 1, args.length)));
            return;
        }
        int code;
        try {
            code = run(args, System.out);
        } catch (IllegalArgumentException usage) {
            System.err.println(usage.getMessage());
            System.err.println(BenchOptions.USAGE.formatted(Scenarios.NAMES));
            code = 2;
        }
        // Neo4j and Reactor leave non-daemon threads behind; the run is over.
        System.exit(code);
    }

    /** JMH's own options, plus a JSON result file under the results directory unless the caller chose one. */
    static String[] jmhArgs(String[] given) {
        List<String> args = new ArrayList<>(List.of(given));
        if (!args.contains("-rf") && !args.contains("-rff") && !args.contains("-h") && !args.contains("-l")) {
            Path out = Path.of(System.getProperty("omnigraph.bench.out", "benchmarks/results"));
            try {
                Files.createDirectories(out);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now());
            args.addAll(List.of("-rf", "json", "-rff", out.resolve("jmh-" + stamp + ".json").toString()));
        }
        return args.toArray(String[]::new);
    }

    /** Runs the scenarios; returns 0 when every scenario completed, 1 otherwise. */
    public static int run(String[] args, PrintStream out) throws Exception {
        if (Arrays.asList(args).contains("--list")) {
            Scenarios.NAMES.forEach(out::println);
            return 0;
        }
        BenchOptions options = BenchOptions.parse(args);
        String runId = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now())
                + (options.quick() ? "-quick" : "");
        Path runDir = options.out().resolve(runId);
        Files.createDirectories(runDir);
        Map<String, Object> machine = Machine.facts();
        StringBuilder summary = new StringBuilder("# omnigraph-bench run " + runId + "\n\n");
        summary.append(options.quick() ? "**--quick smoke run: sizes are tiny and the numbers mean nothing.**\n\n" : "");
        summary.append("Machine:\n\n").append(Machine.describe(machine)).append('\n');
        summary.append("Ratios compare medians measured in this run. Storage calls/op come from the counting TableStorage and "
                + "ObjectStore wrappers (scan.rows is rows delivered, not a call); storage ms/op is the wall time spent "
                + "inside those calls, summed, so overlapping calls add up.\n\n");
        out.print(summary);
        out.flush();

        List<Map<String, Object>> index = new ArrayList<>();
        int failures = 0;
        try (BenchContext ctx = new BenchContext(options)) {
            for (String name : options.scenarios()) {
                ctx.log("scenario " + name + " …");
                long start = System.nanoTime();
                ScenarioReport report;
                boolean failed = false;
                try {
                    report = Scenarios.create(name).run(ctx);
                } catch (Throwable e) {
                    failed = true;
                    failures++;
                    report = new ScenarioReport(name, "FAILED");
                    report.note("the scenario failed: " + e);
                    e.printStackTrace();
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                report.note(String.format(java.util.Locale.ROOT, "scenario wall time %.1f s", seconds));
                String markdown = report.toMarkdown();
                out.println(markdown);
                out.flush();
                summary.append(markdown).append('\n');
                Map<String, Object> json = new LinkedHashMap<>(report.toJson());
                json.put("runId", runId);
                json.put("quick", options.quick());
                json.put("failed", failed);
                json.put("machine", machine);
                Path file = runDir.resolve(name + ".json");
                JSON.writeValue(file.toFile(), json);
                index.add(Map.of("scenario", name, "file", file.getFileName().toString(), "failed", failed));
            }
        }
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("runId", runId);
        run.put("quick", options.quick());
        run.put("args", List.of(args));
        run.put("machine", machine);
        run.put("scenarios", index);
        JSON.writeValue(runDir.resolve("run.json").toFile(), run);
        Files.writeString(runDir.resolve("summary.md"), summary, StandardCharsets.UTF_8);
        Files.writeString(options.out().resolve("latest.txt"), runId + "\n", StandardCharsets.UTF_8);
        out.println("results: " + runDir.toAbsolutePath());
        return failures == 0 ? 0 : 1;
    }
}

package dev.omnigraph.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Command-line options of the scenario runner. {@code --quick} shrinks every size and repetition count to a
 * smoke run that proves the runner works; its numbers mean nothing.
 */
public record BenchOptions(boolean quick, List<String> scenarios, Path out, Path work, boolean keepWork,
                           int maxDepth, double historyBudgetMinutes, double neo4jStartBudgetSeconds,
                           OptionalInt scaleEntities) {

    public static final String USAGE = """
            usage: omnigraph-bench [--quick] [--max-depth N] [--history-budget-min M] [--neo4j-start-budget-s S]
                                   [--scale N] [--out DIR] [--work DIR] [--keep-work] [scenario ...]
                   --scale N: entities of scale-reads (e.g. 1m, 10m, 200k; default 1m)
                   omnigraph-bench jmh [JMH options]      (e.g. jmh -f 1 -wi 3 -i 5 Gate)
                   omnigraph-bench --list
            scenarios: %s (default: all)""";

    /** Full-run size or quick-run size. */
    public int pick(int full, int quickSize) {
        return quick ? quickSize : full;
    }

    public static BenchOptions parse(String[] args) {
        boolean quick = false;
        boolean keep = false;
        int maxDepth = 10_000;
        double budget = 90;
        double neo4jBudget = Double.POSITIVE_INFINITY;
        OptionalInt scale = OptionalInt.empty();
        Path out = Path.of(System.getProperty("omnigraph.bench.out", "benchmarks/results"));
        Path work = null;
        List<String> names = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--quick" -> quick = true;
                case "--keep-work" -> keep = true;
                case "--max-depth" -> maxDepth = Integer.parseInt(value(args, ++i, arg));
                case "--history-budget-min" -> budget = Double.parseDouble(value(args, ++i, arg));
                case "--neo4j-start-budget-s" -> neo4jBudget = Double.parseDouble(value(args, ++i, arg));
                case "--scale" -> scale = OptionalInt.of(entities(value(args, ++i, arg)));
                case "--out" -> out = Path.of(value(args, ++i, arg));
                case "--work" -> work = Path.of(value(args, ++i, arg));
                default -> {
                    if (arg.startsWith("--")) {
                        throw new IllegalArgumentException("unknown option " + arg);
                    }
                    if (!Scenarios.NAMES.contains(arg) && !Scenarios.ON_DEMAND.contains(arg)) {
                        throw new IllegalArgumentException("unknown scenario '" + arg + "'; known: " + Scenarios.NAMES);
                    }
                    names.add(arg);
                }
            }
        }
        if (quick && neo4jBudget == Double.POSITIVE_INFINITY) {
            neo4jBudget = 20; // the smoke may skip Neo4j only when it is this slow to start
        }
        if (work == null) {
            work = Path.of(System.getProperty("java.io.tmpdir"), "omnigraph-bench-" + ProcessHandle.current().pid());
        }
        return new BenchOptions(quick, names.isEmpty() ? Scenarios.NAMES : List.copyOf(names), out, work, keep,
                maxDepth, budget, neo4jBudget, scale);
    }

    /** {@code 10m}, {@code 200k} or a plain count; at least 2 (one node and one edge). */
    static int entities(String text) {
        String t = text.strip().toLowerCase(java.util.Locale.ROOT).replace("_", "");
        long factor = t.endsWith("m") ? 1_000_000 : t.endsWith("k") ? 1_000 : 1;
        String digits = factor == 1 ? t : t.substring(0, t.length() - 1);
        long n;
        try {
            n = Long.parseLong(digits) * factor;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--scale takes a count such as 1m, 10m or 200000, not '" + text + "'");
        }
        if (n < 2 || n > Integer.MAX_VALUE) throw new IllegalArgumentException("--scale " + text + " is out of range");
        return (int) n;
    }

    private static String value(String[] args, int index, String option) {
        if (index >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[index];
    }
}

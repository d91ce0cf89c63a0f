package dev.omnigraph.bench;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** The facts a result is meaningless without: cores, memory, JVM and OS. */
final class Machine {
    private Machine() {
    }

    static Map<String, Object> facts() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("availableProcessors", Runtime.getRuntime().availableProcessors());
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            out.put("physicalMemoryGiB", round(os.getTotalMemorySize() / (double) (1L << 30)));
        }
        out.put("maxHeapGiB", round(Runtime.getRuntime().maxMemory() / (double) (1L << 30)));
        out.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        out.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
        String git = System.getProperty("omnigraph.bench.git");
        if (git != null && !git.isBlank()) {
            out.put("gitCommit", git);
        }
        return out;
    }

    static String describe(Map<String, Object> facts) {
        StringBuilder out = new StringBuilder();
        facts.forEach((key, value) -> out.append("- ").append(key).append(": ").append(value).append('\n'));
        return out.toString();
    }

    private static String round(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }
}

package dev.omnigraph.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Where a graph root's bytes are: per dataset ({@code __manifest}, each node/edge table, the audit table) and per
 * Lance part ({@code data}, {@code _versions}, {@code _deletions}, {@code _transactions}, {@code _indices}), with file
 * counts, so a disk figure can be read as a composition instead of one number.
 */
final class DiskComposition {
    private DiskComposition() {
    }

    static String of(Path root) throws IOException {
        Map<String, long[]> parts = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            files.filter(Files::isRegularFile).forEach(file -> {
                long[] sum = parts.computeIfAbsent(part(root.relativize(file)), key -> new long[2]);
                sum[0]++;
                sum[1] += size(file);
            });
        }
        return parts.entrySet().stream().map(e -> String.format(Locale.ROOT, "%s %,d B in %,d",
                e.getKey(), e.getValue()[1], e.getValue()[0])).collect(Collectors.joining("; "));
    }

    /**
     * The sizes of {@code __manifest}'s data files (the lineage and the current-state rows), largest first: the
     * folded fragments, the per-publish ones and any copy a kept version still references, told apart by size.
     */
    static String lineageFiles(Path root) throws IOException {
        try (Stream<Path> files = Files.list(root.resolve("__manifest").resolve("data"))) {
            List<Long> sizes = files.map(DiskComposition::size).sorted(Comparator.reverseOrder()).toList();
            return sizes.size() + " files: " + sizes.stream().map(size -> String.format(Locale.ROOT, "%,d", size))
                    .collect(Collectors.joining(" "));
        }
    }

    /** {@code nodes/<id>/data/x.lance} → {@code nodes/<id> data}; {@code __manifest/_versions/1.manifest} → {@code __manifest _versions}. */
    private static String part(Path relative) {
        int names = relative.getNameCount();
        boolean table = names > 2 && (relative.getName(0).toString().equals("nodes")
                || relative.getName(0).toString().equals("edges"));
        int dataset = table ? 2 : 1;
        String prefix = relative.subpath(0, Math.min(dataset, names)).toString();
        return names > dataset + 1 ? prefix + " " + relative.getName(dataset) : prefix;
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

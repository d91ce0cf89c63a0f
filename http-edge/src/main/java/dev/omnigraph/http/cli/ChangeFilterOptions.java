package dev.omnigraph.http.cli;

import dev.omnigraph.engine.diff.ChangeFilter;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/** The filter and page flags shared by {@code commit changes} and {@code changes poll|baseline}. */
final class ChangeFilterOptions {
    @Option(names = "--kind", paramLabel = "<node|edge>", description = "Only this entity kind (repeatable).")
    List<String> kinds;

    @Option(names = "--type", paramLabel = "<T>", description = "Only this node or edge type (repeatable).")
    List<String> types;

    @Option(names = "--op", paramLabel = "<insert|update|delete>", description = "Only this operation (repeatable).")
    List<String> ops;

    @Option(names = "--limit", paramLabel = "<n>", description = "Changes per page (default 1000, at most 8192).")
    Integer limit;

    ChangeFilter filter() {
        return ChangeFilter.parse(orEmpty(kinds), orEmpty(types), orEmpty(ops));
    }

    Optional<Integer> limit() {
        return Optional.ofNullable(limit);
    }

    private static List<String> orEmpty(List<String> values) {
        return values == null ? List.of() : values;
    }
}

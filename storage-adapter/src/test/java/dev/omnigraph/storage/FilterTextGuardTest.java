package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Guards the one place that writes Lance filter text: outside {@link SqlLiterals} (and {@link FilterBounds}, which
 * reads it), no production source may spell a column reference, a comparison, an IN list, a boolean connective or a
 * filter function call in a string literal. Such code would bypass the quoting of identifiers (Lance folds bare
 * ones to lower case), the escaping of literals, and the balancing that keeps the native parser's stack safe.
 */
class FilterTextGuardTest {
    private static final Path PROJECT = Path.of("").toAbsolutePath().getParent();
    private static final List<String> MODULES = List.of("storage-adapter", "recovery", "reactive-engine", "http-edge", "benchmarks");
    private static final List<String> ALLOWED = List.of("SqlLiterals.java", "FilterBounds.java");
    /** A string literal that opens or closes a back-quoted name, or is SQL glue around a column. */
    private static final Pattern FILTER_TEXT = Pattern.compile(String.join("|",
            "\"`\"",                                                    // "`" + name + "`"
            "`\\w+`\\s*(=|<>|!=|<=|>=|<|>|IN\\b)",                      // "`id` = "
            "\"\\w+\\s+(=|<>|!=|<=|>=|<|>)\\s+'?\"\\s*\\+",                   // "id = " + …
            "\"\\s*(=|<>|!=|<=|>=|<|>)\\s*'?\"\\s*\\+\\s*(\\w+\\.)?(quote|literal)\\(", // name + " = " + quote(…)
            "\"\\s*<>\\s*'?\"",                                           // " <> "
            "\"\\s+(AND|OR)\\s+\\(?\"|\"\\s*NOT\\s*\\(?\"",                 // " AND ", " OR (", "NOT ("
            "\"[^\"\\n]*\\sIN\\s*\\(\"",                                 // " IN (", "id IN ("
            "\"(starts_with|contains|array_has|array_contains|regexp_like)\\(\"",
            "\"DATE '\""));

    @Test
    void onlySqlLiteralsWritesFilterText() {
        List<String> offenders = new ArrayList<>();
        for (String module : MODULES) {
            for (Path source : javaSources(PROJECT.resolve(module).resolve("src/main/java"))) {
                if (ALLOWED.contains(source.getFileName().toString())) continue;
                var matcher = FILTER_TEXT.matcher(read(source));
                while (matcher.find()) offenders.add(PROJECT.relativize(source) + ": " + matcher.group());
            }
        }
        assertThat(offenders).as("filter text built outside SqlLiterals").isEmpty();
    }

    @Test
    void theGuardRecognisesWhatItForbids() {
        for (String code : List.of("\"`\" + name + \"`\"", "name + \" = \" + quote(v)", "\"operation_id = \" + quote(id)",
                "\"id IN (\"", "\" AND \"", "\" OR (\"", "\"starts_with(\" + col", "\"DATE '\" + d", "col + \" <> '\"",
                "name + \" = \" + SqlLiterals.quote(v)", "\"`id` IN (\"")) {
            assertThat(FILTER_TEXT.matcher(code).find()).as(code).isTrue();
        }
        for (String code : List.of("\"run `omnigraph repair`\"", "\" = \" + value + \" is outside\"", "\"=\"",
                "EQ(\"=\")", "\"starts_with\"", "\"check the IN list\"", "\" and \"", "\"not\"")) {
            assertThat(FILTER_TEXT.matcher(code).find()).as(code).isFalse();
        }
    }

    @Test
    void theGuardSeesTheModulesItScans() {
        for (String module : MODULES) assertThat(PROJECT.resolve(module).resolve("src/main/java")).isDirectory();
        assertThat(read(PROJECT.resolve("storage-adapter/src/main/java/dev/omnigraph/storage/SqlLiterals.java")))
                .containsPattern(FILTER_TEXT);
    }

    private static List<Path> javaSources(Path root) {
        return SeamGuardTest.javaSources(root);
    }

    private static String read(Path file) {
        return SeamGuardTest.read(file);
    }
}

package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps {@code docs/java-api.md} honest: every {@code java} block of the page is a tagged region of
 * {@link JavaApiSnippetsTest} (which runs it), and every public type of the facade package carries javadoc.
 */
class JavaApiDocTest {
    static final Path MODULE = Path.of("").toAbsolutePath();
    static final Path PAGE = MODULE.resolveSibling("docs").resolve("java-api.md");
    static final Path SNIPPETS = MODULE.resolve("src/test/java/dev/omnigraph/engine/JavaApiSnippetsTest.java");
    static final Path FACADE = MODULE.resolve("src/main/java/dev/omnigraph/engine");
    static final Pattern REGION = Pattern.compile("// tag::([a-z-]+)\\[]\\n(.*?)\\n\\s*// end::\\1\\[]", Pattern.DOTALL);
    static final Pattern BLOCK = Pattern.compile("```java\\n(.*?)\\n```", Pattern.DOTALL);

    @Test
    void everyJavaBlockOfThePageIsARegionTheSnippetTestRuns() throws IOException {
        Map<String, String> regions = new LinkedHashMap<>();
        Matcher region = REGION.matcher(Files.readString(SNIPPETS));
        while (region.find()) {
            regions.put(region.group(1), dedent(region.group(2)));
        }
        List<String> blocks = new ArrayList<>();
        Matcher block = BLOCK.matcher(Files.readString(PAGE));
        while (block.find()) {
            blocks.add(dedent(block.group(1)));
        }
        assertThat(blocks).as("java blocks of " + PAGE).isNotEmpty();
        for (String text : blocks) {
            assertThat(regions.values()).as("a tagged region of JavaApiSnippetsTest equal to\n" + text).contains(text);
        }
        assertThat(blocks).as("every tagged snippet is shown on the page").containsAll(regions.values());
    }

    @Test
    void everyPublicTypeAndMethodOfTheFacadeHasJavadoc() throws IOException {
        // Type declarations that are not private (nested ones in an interface are public without the keyword),
        // and public methods and constructors, of every file whose top-level type is public.
        Pattern declaration = Pattern.compile("^(?:[ \\t]*(?!private)(?:(?:public|static|final|abstract|sealed|non-sealed) )*"
                + "(?:class|record|interface|enum) (\\w+)|[ \\t]*public (?:(?:static|final|synchronized) )*[\\w<>?,. \\[\\]]*?(\\w+)\\()",
                Pattern.MULTILINE);
        List<String> missing = new ArrayList<>();
        try (Stream<Path> files = Files.list(FACADE)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                String source = Files.readString(file);
                if (!Pattern.compile("^public ", Pattern.MULTILINE).matcher(source).find()) {
                    continue; // a package-private file is internal
                }
                Matcher found = declaration.matcher(source);
                while (found.find()) {
                    String before = source.substring(0, found.start()).stripTrailing();
                    while (lastLine(before).strip().startsWith("@")) {
                        before = before.substring(0, before.lastIndexOf('\n')).stripTrailing(); // annotations
                    }
                    if (!before.endsWith("*/")) {
                        missing.add(file.getFileName() + ": " + (found.group(1) != null ? found.group(1) : found.group(2)));
                    }
                }
            }
        }
        assertThat(missing).as("public types and methods of dev.omnigraph.engine without javadoc").isEmpty();
    }

    private static String lastLine(String text) {
        return text.substring(text.lastIndexOf('\n') + 1);
    }

    /** The lines with their common leading indentation removed, so a region matches the page's block. */
    static String dedent(String text) {
        List<String> lines = text.lines().toList();
        int indent = lines.stream().filter(line -> !line.isBlank())
                .mapToInt(line -> line.length() - line.stripLeading().length()).min().orElse(0);
        return String.join("\n", lines.stream()
                .map(line -> line.isBlank() ? "" : line.substring(indent)).toList());
    }
}

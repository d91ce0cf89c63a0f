package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * No import cycles between the project's packages, in any module: a package that needs another must not be needed
 * by it, directly or through others. Edges are every reference to a project type by its qualified name (imports,
 * static imports, inline qualified names), read from the sources.
 */
class PackageCycleTest {
    private static final Path PROJECT = Path.of("").toAbsolutePath().getParent();
    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+);", Pattern.MULTILINE);
    private static final Pattern REFERENCE = Pattern.compile("\\b(dev\\.omnigraph(?:\\.[a-z][a-z0-9_]*)*)\\.(?:[A-Z]|\\*)");

    @Test
    void theProjectsPackagesFormNoCycle() {
        Map<String, Set<String>> edges = new TreeMap<>();
        for (String module : List.of("storage-adapter", "recovery", "reactive-engine", "http-edge", "benchmarks")) {
            for (Path source : SeamGuardTest.javaSources(PROJECT.resolve(module).resolve("src/main/java"))) {
                String text = SeamGuardTest.read(source);
                Matcher declared = PACKAGE.matcher(text);
                if (!declared.find()) continue;
                String from = declared.group(1);
                Set<String> targets = edges.computeIfAbsent(from, key -> new TreeSet<>());
                Matcher reference = REFERENCE.matcher(text);
                while (reference.find()) {
                    if (!reference.group(1).equals(from)) targets.add(reference.group(1));
                }
            }
        }
        assertThat(edges).as("packages found").hasSizeGreaterThan(10);
        assertThat(cycles(edges)).as("package cycles").isEmpty();
    }

    @Test
    void theCheckFindsACycleThroughAThirdPackage() {
        Map<String, Set<String>> edges = Map.of("a", Set.of("b"), "b", Set.of("c"), "c", Set.of("a"), "d", Set.of("a"));
        assertThat(cycles(edges)).containsExactly(List.of("a", "b", "c"));
        assertThat(cycles(Map.of("a", Set.of("b"), "b", Set.of()))).isEmpty();
    }

    /** Strongly connected components of more than one package (Tarjan), each sorted. */
    static List<List<String>> cycles(Map<String, Set<String>> edges) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<List<String>> found = new ArrayList<>();
        for (String start : new TreeSet<>(edges.keySet())) {
            if (!index.containsKey(start)) {
                connect(start, edges, index, low, stack, onStack, found);
            }
        }
        return found;
    }

    private static void connect(String node, Map<String, Set<String>> edges, Map<String, Integer> index,
                                Map<String, Integer> low, Deque<String> stack, Set<String> onStack,
                                List<List<String>> found) {
        index.put(node, index.size());
        low.put(node, index.get(node));
        stack.push(node);
        onStack.add(node);
        for (String next : edges.getOrDefault(node, Set.of())) {
            if (!index.containsKey(next)) {
                connect(next, edges, index, low, stack, onStack, found);
                low.put(node, Math.min(low.get(node), low.get(next)));
            } else if (onStack.contains(next)) {
                low.put(node, Math.min(low.get(node), index.get(next)));
            }
        }
        if (low.get(node).equals(index.get(node))) {
            List<String> component = new ArrayList<>();
            String member;
            do {
                member = stack.pop();
                onStack.remove(member);
                component.add(member);
            } while (!member.equals(node));
            if (component.size() > 1) {
                component.sort(null);
                found.add(component);
            }
        }
    }
}

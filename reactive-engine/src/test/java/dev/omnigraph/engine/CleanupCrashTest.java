package dev.omnigraph.engine;

import static dev.omnigraph.engine.CleanupHistory.everything;
import static dev.omnigraph.engine.CleanupHistory.newest;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.cleanup.CleanupOptions;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.testing.ChildJvm;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A child JVM killed ({@code Runtime.halt}) half-way through {@code cleanup --keep 1 --confirm}: between a dataset's
 * files and its manifests, after a whole dataset, further on, and between {@code __manifest}'s files and its manifests. The graph must then read exactly as before on
 * main and the branch, and a second cleanup must leave exactly the files an uninterrupted cleanup leaves.
 */
class CleanupCrashTest extends ConstrainedGraphTest {
    static final CleanupOptions KEEP_ONE = CleanupOptions.of(OptionalInt.of(1), Optional.empty(), true);

    @Test
    void aCleanupKilledHalfWayLeavesAReadableGraphAndARerunFinishes() throws Exception {
        Path template = dir.resolve("g");
        CleanupHistory.build(graph);
        var mainNow = everything(graph, ReadTarget.main());
        var featNow = everything(graph, ReadTarget.branch("feat"));
        // Cleanup collects the table datasets first, then __manifest: its ordinal is one past theirs.
        long manifestOrdinal = Stream.of(ReadTarget.main(), ReadTarget.branch("feat"))
                .flatMap(target -> graph.snapshot(target).block().manifest().tables().values().stream()
                        .map(dev.omnigraph.storage.manifest.TableEntry::location))
                .distinct().count() + 1;
        graph.close();

        Path reference = copy(template, "reference");
        try (Omnigraph ref = Omnigraph.open(services, reference, OpenMode.READ_WRITE).block()) {
            ref.cleanup(KEEP_ONE).block();
        }
        Set<String> expectedFiles = files(reference);

        for (String point : List.of(FailpointCatalog.CLEANUP_AFTER_FILES + "1", FailpointCatalog.CLEANUP_AFTER_MANIFESTS + "1",
                FailpointCatalog.CLEANUP_AFTER_FILES + "3", FailpointCatalog.CLEANUP_AFTER_FILES + manifestOrdinal)) {
            Path root = copy(template, "crash-" + point.replace(':', '-'));
            Path tmp = dir.resolve("tmp-" + point.replace(':', '-'));
            ChildJvm.Finished child = ChildJvm.run(CleanupCrashMain.class, tmp, List.of(root.toString()),
                    List.of(Failpoints.ENV + "=" + point + "=exit"), java.time.Duration.ofSeconds(120));
            String output = child.output();
            assertThat(child.exitValue()).as("killed at %s: %s", point, output).isEqualTo(Failpoints.EXIT_CODE);

            try (Omnigraph reopened = Omnigraph.open(services, root, OpenMode.READ_WRITE).block()) {
                assertThat(everything(reopened, ReadTarget.main())).as("main after a kill at %s", point).isEqualTo(mainNow);
                assertThat(everything(reopened, ReadTarget.branch("feat"))).as("feat after %s", point).isEqualTo(featNow);
                reopened.cleanup(KEEP_ONE).block();
                assertThat(files(root)).as("a rerun after %s finishes the job", point).isEqualTo(expectedFiles);
                assertThat(everything(reopened, ReadTarget.main())).isEqualTo(mainNow);
                assertThat(everything(reopened, ReadTarget.branch("feat"))).isEqualTo(featNow);
                String featHead = newest(reopened, "feat", 1).get(0);
                assertThat(everything(reopened, ReadTarget.commit(featHead))).isEqualTo(featNow);
            }
            deleteTree(tmp);
        }
    }

    private Path copy(Path from, String name) throws IOException {
        Path to = dir.resolve(name);
        SchemaApplyCrashTest.copy(from, to);
        return to;
    }

    private static Set<String> files(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            Set<String> out = new TreeSet<>();
            walk.filter(Files::isRegularFile).map(path -> root.relativize(path).toString()).forEach(out::add);
            return out;
        }
    }

    private static void deleteTree(Path path) throws IOException {
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path each : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(each);
            }
        }
    }

}

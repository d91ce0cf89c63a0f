package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Guards the storage seam in the source tree: only storage-adapter may import Lance or Arrow's JNI bridge, and no
 * production code anywhere may call Lance's inline-commit APIs (every write must be staged, then committed once).
 */
class SeamGuardTest {
    private static final Path PROJECT = Path.of("").toAbsolutePath().getParent();
    private static final List<String> OTHER_MODULES = List.of("recovery", "reactive-engine", "http-edge");
    private static final Pattern LANCE_IMPORT = Pattern.compile("^\\s*import\\s+(static\\s+)?(org\\.lance|org\\.apache\\.arrow\\.c)\\.", Pattern.MULTILINE);
    private static final Pattern INLINE_COMMIT = Pattern.compile(
            "\\.mergeInsert\\s*\\(|\\bcommitAppend\\s*\\(|\\bcommitOverwrite\\s*\\(|\\bDataset\\.commit\\s*\\(|\\bdataset\\.delete\\s*\\(|\\.compact\\s*\\(|\\.restore\\s*\\(\\s*\\)");

    @Test
    void theProjectLayoutIsWhereThisTestExpectsIt() {
        assertThat(PROJECT.resolve("pom.xml")).exists();
        for (String module : OTHER_MODULES) {
            assertThat(PROJECT.resolve(module).resolve("pom.xml")).exists();
        }
    }

    @Test
    void onlyTheStorageAdapterImportsLance() {
        List<String> offenders = new ArrayList<>();
        for (String module : OTHER_MODULES) {
            for (Path source : javaSources(PROJECT.resolve(module).resolve("src/main/java"))) {
                if (LANCE_IMPORT.matcher(read(source)).find()) {
                    offenders.add(PROJECT.relativize(source).toString());
                }
            }
        }
        assertThat(offenders).as("Lance/JNI imports outside storage-adapter").isEmpty();
    }

    @Test
    void noProductionCodeCallsInlineCommitApis() {
        List<String> offenders = new ArrayList<>();
        for (String module : List.of("storage-adapter", "recovery", "reactive-engine", "http-edge")) {
            for (Path source : javaSources(PROJECT.resolve(module).resolve("src/main/java"))) {
                var matcher = INLINE_COMMIT.matcher(read(source));
                while (matcher.find()) {
                    offenders.add(PROJECT.relativize(source) + ": " + matcher.group());
                }
            }
        }
        assertThat(offenders).as("inline-commit Lance calls").isEmpty();
    }

    @Test
    void theGuardItselfRecognisesWhatItForbids() {
        assertThat(LANCE_IMPORT.matcher("import org.lance.Dataset;").find()).isTrue();
        assertThat(LANCE_IMPORT.matcher("import org.apache.arrow.c.Data;").find()).isTrue();
        assertThat(LANCE_IMPORT.matcher("import org.apache.arrow.vector.types.pojo.Schema;").find()).isFalse();
        for (String call : List.of("ds.mergeInsert(p, s)", "Dataset.commitAppend(a)", "Dataset.commit(al, p, op, v)",
                "dataset.delete(\"x\")", "ds.compact()", "old.restore()")) {
            assertThat(INLINE_COMMIT.matcher(call).find()).as(call).isTrue();
        }
        assertThat(INLINE_COMMIT.matcher("storage.commitStaged(handle)").find()).isFalse();
    }

    static List<Path> javaSources(Path root) {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> p.toString().endsWith(".java")).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

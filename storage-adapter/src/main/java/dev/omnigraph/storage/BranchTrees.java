package dev.omnigraph.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Lance creates a branch in two phases (clone {@code tree/<name>}, then write its ref) and deletes it in the
 * reverse order, so a crash can leave a tree with no ref. Such a tree is unreachable garbage, but it makes the
 * next create of that name fail; the create reclaims it first. Only local roots are handled here.
 */
final class BranchTrees {
    private BranchTrees() {
    }

    /** Removes {@code <datasetPath>/tree/<name>} when it exists; the caller has checked that no ref names it. */
    static void reclaimOrphanTree(String datasetPath, String name) {
        Optional<Path> root = localPath(datasetPath);
        if (root.isEmpty()) {
            return;
        }
        Path tree = root.get().resolve("tree").resolve(name).normalize();
        if (!tree.startsWith(root.get().resolve("tree")) || !Files.isDirectory(tree)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(tree)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not reclaim the orphaned branch tree " + tree, e);
        }
    }

    /** The local directory of a dataset path ({@code file:} URI or plain path); empty for object-store URIs. */
    static Optional<Path> localPath(String datasetPath) {
        if (datasetPath.startsWith("file:")) {
            return Optional.of(Path.of(URI.create(datasetPath)));
        }
        return datasetPath.contains("://") ? Optional.empty() : Optional.of(Path.of(datasetPath));
    }
}

package dev.omnigraph.storage.nativelib;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Leftover native-library copies in one folder, matched by name: the temp copies that loaders which copy on every
 * start and delete only on a normal exit leave behind, one per killed JVM (jar-jni's {@code liblance_jni<n>.so},
 * Arrow's {@code jnilib-<n>.tmp}), or this cache's interrupted extractions and unused versions. A copy is removed
 * only when it is a regular file of this user, older than {@code minAge} (so a loader between its copy and its load
 * is left alone), and mapped by no live process.
 */
record StaleCopies(Path dir, Predicate<String> names, Duration minAge) {
    /** Bounds one sweep of a folder; what is left waits for the next start. */
    static final int LIMIT = 1_000;

    /** A file that may be stale: its inode ties the later checks to the file that was listed. */
    record Candidate(Path path, long inode, long size) {
    }

    /** The old regular files of this user whose names match; reads no map. */
    List<Candidate> candidates(Instant now) {
        List<Candidate> found = new ArrayList<>();
        if (!Files.isDirectory(dir)) return found;
        DirectoryStream.Filter<Path> named = path -> names.test(path.getFileName().toString());
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, named)) {
            for (Path file : files) {
                candidate(file, now).ifPresent(found::add);
                if (found.size() >= LIMIT) break;
            }
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return found;
        }
        return found;
    }

    /** Removes the candidates no process maps; returns the removed ones. */
    List<Candidate> remove(List<Candidate> candidates, MappedFiles mapped, Instant now) {
        List<Candidate> removed = new ArrayList<>();
        for (Candidate c : candidates) {
            if (mapped.maps(c.inode())) continue;
            try {
                // Still the same old file? (It may have been replaced since it was listed.)
                Optional<Candidate> again = candidate(c.path(), now);
                if (again.isPresent() && again.get().inode() == c.inode() && Files.deleteIfExists(c.path())) {
                    removed.add(c);
                }
            } catch (IOException | SecurityException e) {
                // Not ours to remove after all, or gone: leave it.
            }
        }
        return removed;
    }

    /** Candidates, then (only if there are any) the maps, then removal: one folder's whole sweep. */
    List<Candidate> reclaim(Instant now, Supplier<Optional<MappedFiles>> mapped) {
        List<Candidate> found = candidates(now);
        if (found.isEmpty()) return found;
        return mapped.get().map(m -> remove(found, m, now)).orElse(List.of());
    }

    private Optional<Candidate> candidate(Path file, Instant now) {
        try {
            Map<String, Object> a = Files.readAttributes(file, "unix:ino,owner,size,lastModifiedTime,isRegularFile",
                    LinkOption.NOFOLLOW_LINKS);
            boolean old = ((FileTime) a.get("lastModifiedTime")).toInstant().isBefore(now.minus(minAge));
            if (Boolean.TRUE.equals(a.get("isRegularFile")) && old && CurrentUser.is((UserPrincipal) a.get("owner"))) {
                return Optional.of(new Candidate(file, (Long) a.get("ino"), (Long) a.get("size")));
            }
        } catch (NoSuchFileException e) {
            // gone since the listing
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            // No inode to tie the proof to (not a Unix file system): never a candidate.
        }
        return Optional.empty();
    }
}

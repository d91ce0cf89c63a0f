package dev.omnigraph.storage.nativelib;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * One sweep over the folders where stale library copies collect, run once per JVM in a background daemon thread
 * after the library is loaded. It costs a directory listing per folder when nothing is stale; the process maps are
 * read only when there is a candidate, within {@link #MAP_BUDGET}. A stamp in the cache keeps the many JVMs of a
 * test run from sweeping more than once per {@link #INTERVAL}.
 */
record LeftoverSweep(List<StaleCopies> places, Optional<Path> stamp, Path proc) {
    static final Duration INTERVAL = Duration.ofMinutes(10);
    static final Duration MAP_BUDGET = Duration.ofSeconds(2);
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    /** Builds and runs the sweep in a background daemon thread, the first time a library is loaded in this JVM. */
    static void startOnce(Supplier<LeftoverSweep> sweep) {
        if (!STARTED.compareAndSet(false, true)) return;
        Thread sweeper = new Thread(() -> sweep.get().run(Instant.now()), "omnigraph-native-sweep");
        sweeper.setDaemon(true); // never holds up an exit; a sweep cut short is finished by a later start
        sweeper.setPriority(Thread.MIN_PRIORITY);
        sweeper.start();
    }

    /** Sweeps unless another JVM did within the interval; returns what was removed. */
    List<StaleCopies.Candidate> run(Instant now) {
        if (!due(now)) return List.of();
        List<List<StaleCopies.Candidate>> found = places.stream().map(place -> place.candidates(now)).toList();
        if (found.stream().allMatch(List::isEmpty)) return List.of(); // the usual case: no map is read
        Optional<MappedFiles> mapped = MappedFiles.scan(proc, ProcessHandle.current().pid(), MAP_BUDGET);
        if (mapped.isEmpty()) return List.of();
        List<StaleCopies.Candidate> removed = new ArrayList<>();
        for (int i = 0; i < places.size(); i++) {
            removed.addAll(places.get(i).remove(found.get(i), mapped.get(), now));
        }
        if (!removed.isEmpty()) {
            long bytes = removed.stream().mapToLong(StaleCopies.Candidate::size).sum();
            log().info("Removed {} stale native-library copies ({} MB) that no live process had loaded",
                    removed.size(), bytes >> 20);
        }
        return removed;
    }

    private boolean due(Instant now) {
        if (stamp.isEmpty()) return true;
        Path file = stamp.get();
        try {
            Files.createFile(file);
            Files.setLastModifiedTime(file, FileTime.from(now));
            return true;
        } catch (FileAlreadyExistsException e) {
            try {
                if (Files.getLastModifiedTime(file).toInstant().isAfter(now.minus(INTERVAL))) return false;
                Files.setLastModifiedTime(file, FileTime.from(now));
                return true;
            } catch (IOException again) {
                return true;
            }
        } catch (IOException e) {
            return true; // a read-only cache: sweep anyway, the proofs do not depend on the stamp
        }
    }

    /** Looked up only when there is something to say: starting SLF4J would otherwise add ~0.1 s to every load. */
    private static org.slf4j.Logger log() {
        return org.slf4j.LoggerFactory.getLogger(LeftoverSweep.class);
    }
}

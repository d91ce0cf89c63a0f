package dev.omnigraph.storage.nativelib;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

/**
 * The inodes of the files live processes have mapped, from {@code /proc/<pid>/maps}: the proof that a leftover
 * library copy is loaded nowhere. Absent whenever that proof is incomplete (no /proc, this JVM's own map missing, a
 * Java process of this user whose map cannot be read, the time budget spent): then nothing may be reclaimed.
 *
 * <p>Processes whose map this user may not read are passed over unless they look like a JVM: another user's never
 * loads a copy this user made (each loader makes its own), and this user's unreadable ones are non-dumpable or more
 * privileged programs (in a sandbox, its init), not JVMs loading Lance. A wrong guess would cost little on Linux:
 * removing a mapped file leaves the mapping intact, the process only finds nothing to delete at exit.
 */
record MappedFiles(Set<Long> inodes) {

    /** Reads every process's map under {@code proc}; {@code self} is this JVM's pid, whose map must be there. */
    static Optional<MappedFiles> scan(Path proc, long self, Duration budget) {
        long deadline = System.nanoTime() + budget.toNanos();
        Set<Long> inodes = new HashSet<>();
        try {
            // A procfs without maps would make every file look unmapped: require ours.
            if (readInodes(proc.resolve(Long.toString(self)).resolve("maps"), inodes) == 0) return Optional.empty();
            try (DirectoryStream<Path> pids = Files.newDirectoryStream(proc, MappedFiles::isPid)) {
                for (Path pid : pids) {
                    if (System.nanoTime() > deadline) return Optional.empty();
                    if (!readable(pid, inodes)) return Optional.empty();
                }
            }
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
        return Optional.of(new MappedFiles(Set.copyOf(inodes)));
    }

    boolean maps(long inode) {
        return inodes.contains(inode);
    }

    /** Adds one process's mapped inodes; false when it may be a JVM of this user whose map cannot be read. */
    private static boolean readable(Path pid, Set<Long> inodes) {
        try {
            readInodes(pid.resolve("maps"), inodes);
            return true;
        } catch (NoSuchFileException e) {
            return true; // exited since the listing
        } catch (AccessDeniedException e) {
            return !ownedByUs(pid) || !mayBeJava(pid);
        } catch (IOException e) {
            return !Files.exists(pid); // ESRCH from a process exiting while read
        }
    }

    private static boolean ownedByUs(Path pid) {
        try {
            return CurrentUser.owns(pid);
        } catch (IOException e) {
            return false; // gone
        }
    }

    /** From its command line, which stays readable when the map is not; true when even that cannot be read. */
    private static boolean mayBeJava(Path pid) {
        try {
            String command = new String(Files.readAllBytes(pid.resolve("cmdline")), StandardCharsets.ISO_8859_1)
                    .toLowerCase(java.util.Locale.ROOT);
            return command.contains("java") || command.contains("jvm");
        } catch (NoSuchFileException e) {
            return false; // exited
        } catch (IOException e) {
            return true;
        }
    }

    private static boolean isPid(Path path) {
        String name = path.getFileName().toString();
        return !name.isEmpty() && name.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    /** Lines are "address perms offset dev inode [path]"; returns how many lines were read. */
    private static int readInodes(Path maps, Set<Long> inodes) throws IOException {
        int lines = 0;
        try (BufferedReader reader = Files.newBufferedReader(maps, StandardCharsets.ISO_8859_1)) {
            for (String line; (line = reader.readLine()) != null; lines++) {
                long inode = field(line, 4);
                if (inode > 0) inodes.add(inode);
            }
        }
        return lines;
    }

    /** The decimal number in the {@code index}-th space-separated field, or -1. */
    private static long field(String line, int index) {
        int at = 0;
        for (int skipped = 0; skipped < index; skipped++) {
            at = line.indexOf(' ', at);
            if (at < 0) return -1;
            while (at < line.length() && line.charAt(at) == ' ') at++;
        }
        long value = 0;
        int start = at;
        for (; at < line.length() && Character.isDigit(line.charAt(at)); at++) {
            value = value * 10 + (line.charAt(at) - '0');
        }
        return at > start ? value : -1;
    }
}

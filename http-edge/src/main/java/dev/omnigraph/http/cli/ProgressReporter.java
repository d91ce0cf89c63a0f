package dev.omnigraph.http.cli;

import dev.omnigraph.engine.LoadProgress;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.http.wire.Json;
import java.io.PrintStream;
import java.util.Locale;

/**
 * Progress of {@code omnigraph load} on stderr: {@code plain} lines for a person (the default when the CLI runs
 * on a terminal), {@code json} lines for a script, or {@code none} (the default otherwise, so a pipe sees only the
 * result on stdout). At most one line per {@link #EVERY_NANOS}, then always one summary line.
 */
final class ProgressReporter {
    static final long EVERY_NANOS = 500_000_000L;

    enum Mode { PLAIN, JSON, NONE }

    private final Mode mode;
    private final PrintStream err;
    private final long totalBytes;
    private final long start = System.nanoTime();
    private long lastPrinted = start;
    private volatile LoadProgress latest = new LoadProgress(0, 0);

    ProgressReporter(Mode mode, PrintStream err, long totalBytes) {
        this.mode = mode;
        this.err = err;
        this.totalBytes = totalBytes;
    }

    /** {@code auto} (or null): plain when stderr is a terminal, else none. */
    static Mode mode(String option) {
        if (option == null || option.equals("auto")) {
            return stderrIsTerminal() ? Mode.PLAIN : Mode.NONE;
        }
        return switch (option) {
            case "plain" -> Mode.PLAIN;
            case "json" -> Mode.JSON;
            case "none" -> Mode.NONE;
            default -> throw new dev.omnigraph.storage.error.BadRequest(
                    "--progress takes auto, plain, json or none, got '" + option + "'");
        };
    }

    /**
     * Whether stderr is a terminal. Java has no isatty; on Linux, file descriptor 2 of this process links to a
     * {@code /dev/pts/N} or {@code /dev/ttyN} device when it is one. Elsewhere, {@link System#console()} (stdin and
     * stdout are terminals) is the nearest answer.
     */
    static boolean stderrIsTerminal() {
        java.nio.file.Path fd = java.nio.file.Path.of("/proc/self/fd/2");
        try {
            String target = java.nio.file.Files.readSymbolicLink(fd).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (java.io.IOException | UnsupportedOperationException notLinux) {
            return System.console() != null;
        }
    }

    /** The engine's listener: keeps the latest reading and prints it when the last line is old enough. */
    void read(LoadProgress progress) {
        latest = progress;
        if (mode == Mode.NONE) {
            return;
        }
        long now = System.nanoTime();
        synchronized (this) {
            if (now - lastPrinted < EVERY_NANOS) {
                return;
            }
            lastPrinted = now;
        }
        print("progress", progress, now, null);
    }

    /** The summary line, once the load published (or was refused: {@code outcome} null). */
    void done(WriteOutcome outcome) {
        if (mode != Mode.NONE) {
            print("done", latest, System.nanoTime(), outcome);
        }
    }

    private void print(String event, LoadProgress progress, long now, WriteOutcome outcome) {
        double seconds = Math.max(1e-9, (now - start) / 1e9);
        double rate = progress.bytesRead() / seconds;
        if (mode == Mode.JSON) {
            var line = Json.object().put("event", event).put("bytes_read", progress.bytesRead())
                    .put("lines_read", progress.linesRead()).put("bytes_total", totalBytes)
                    .put("elapsed_ms", (now - start) / 1_000_000).put("bytes_per_second", Math.round(rate));
            if (outcome != null) {
                line.put("nodes_loaded", outcome.affectedNodes()).put("edges_loaded", outcome.affectedEdges());
            } else if (event.equals("progress") && rate > 0 && totalBytes > 0) {
                line.put("eta_ms", Math.round((totalBytes - progress.bytesRead()) / rate * 1000));
            }
            err.println(Json.text(line));
            return;
        }
        String read = String.format(Locale.ROOT, "%s of %s (%d%%), %,d lines, %s/s", bytes(progress.bytesRead()),
                bytes(totalBytes), totalBytes == 0 ? 100 : progress.bytesRead() * 100 / totalBytes, progress.linesRead(),
                bytes(Math.round(rate)));
        if (event.equals("done")) {
            err.println("load " + (outcome == null ? "stopped" : "done") + ": read " + read + " in "
                    + String.format(Locale.ROOT, "%.1fs", seconds)
                    + (outcome == null ? "" : "; " + outcome.affectedNodes() + " node(s), " + outcome.affectedEdges()
                    + " edge(s) committed"));
        } else {
            long eta = rate > 0 ? Math.round((totalBytes - progress.bytesRead()) / rate) : -1;
            err.println("load: read " + read + (eta >= 0 ? ", about " + eta + "s left" : ""));
        }
        err.flush();
    }

    private static String bytes(long n) {
        return n < 1024 * 1024 ? String.format(Locale.ROOT, "%.1f KiB", n / 1024.0)
                : String.format(Locale.ROOT, "%.1f MiB", n / (1024.0 * 1024));
    }
}

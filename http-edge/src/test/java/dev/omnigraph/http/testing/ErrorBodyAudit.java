package dev.omnigraph.http.testing;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The one check every error body of the edge's test suite passes through (both test clients call it for every
 * response of 400 or more): no local filesystem location, no source file name, no stack trace, and a request id.
 * The server's log keeps those details under the request id; the client gets only what it can act on.
 */
public final class ErrorBodyAudit {
    /** Starts only where a name starts and never backtracks into it: linear on a body of a million letters. */
    private static final Pattern SOURCE_FILE = Pattern.compile("(?<![A-Za-z0-9_$-])[A-Za-z0-9_$-]++\\.(rs|java)(:\\d+|\\b)");
    private static final Pattern STACK_FRAME = Pattern.compile("\\bat [A-Za-z0-9_$.]+\\([^)]*\\)|Caused by:|\\n\\s+at ");
    private static final List<String> LOCATIONS = Stream.of("java.io.tmpdir", "user.dir", "user.home")
            .map(System::getProperty)
            .map(p -> Path.of(p).toAbsolutePath().normalize().toString())
            .filter(p -> p.length() > 1)
            .toList();
    private static final AtomicLong CHECKED = new AtomicLong();

    private ErrorBodyAudit() {
    }

    /** Fails (an {@link AssertionError}) when an error body leaks an internal detail or lacks its request id. */
    public static void check(int status, String body) {
        CHECKED.incrementAndGet();
        String lower = body.toLowerCase(Locale.ROOT);
        for (String location : LOCATIONS) {
            if (body.contains(location)) throw leak(status, body, "names the local path " + location);
        }
        if (lower.contains("file:/")) throw leak(status, body, "names a file: URI");
        if (SOURCE_FILE.matcher(body).find()) throw leak(status, body, "names a source file");
        if (STACK_FRAME.matcher(body).find()) throw leak(status, body, "carries a stack trace");
        if (!body.contains("\"request_id\":\"")) throw leak(status, body, "has no request_id");
    }

    /** How many error bodies have been checked in this JVM (lets a test prove the audit saw its responses). */
    public static long checked() {
        return CHECKED.get();
    }

    private static AssertionError leak(int status, String body, String why) {
        return new AssertionError("error body (" + status + ") " + why + ": " + body);
    }
}

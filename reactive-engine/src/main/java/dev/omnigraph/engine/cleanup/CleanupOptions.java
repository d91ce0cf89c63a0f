package dev.omnigraph.engine.cleanup;

import dev.omnigraph.storage.error.BadRequest;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code cleanup} keeps and whether it deletes. {@code keep}: the newest N commits of every branch;
 * {@code olderThan}: every commit younger than this; at least one is required, and a commit either keeps is kept.
 * Without {@code confirm} nothing is deleted (a preview). Data and deletion files no version references (staged by
 * writes that never committed) are reclaimed once older than {@code orphanGrace}.
 */
public record CleanupOptions(OptionalInt keep, Optional<Duration> olderThan, boolean confirm, Duration orphanGrace,
                             Clock clock) {
    /** How old an unreferenced staged file must be before it counts as abandoned. */
    public static final Duration DEFAULT_ORPHAN_GRACE = Duration.ofHours(1);
    private static final Pattern AGE = Pattern.compile("(\\d{1,9})([smhdw])");

    public CleanupOptions {
        Objects.requireNonNull(keep, "keep");
        Objects.requireNonNull(olderThan, "olderThan");
        Objects.requireNonNull(orphanGrace, "orphanGrace");
        Objects.requireNonNull(clock, "clock");
        if (keep.isEmpty() && olderThan.isEmpty()) {
            throw new BadRequest("cleanup needs --keep N and/or --older-than D: say which history to keep");
        }
        if (keep.isPresent() && keep.getAsInt() < 1) {
            throw new BadRequest("--keep must be at least 1 (the newest commit of every branch is always kept), got "
                    + keep.getAsInt());
        }
        if (orphanGrace.isNegative()) {
            throw new BadRequest("the orphan grace period cannot be negative");
        }
    }

    public static CleanupOptions of(OptionalInt keep, Optional<Duration> olderThan, boolean confirm) {
        return new CleanupOptions(keep, olderThan, confirm, DEFAULT_ORPHAN_GRACE, Clock.systemUTC());
    }

    public CleanupOptions withOrphanGrace(Duration grace) {
        return new CleanupOptions(keep, olderThan, confirm, grace, clock);
    }

    public CleanupOptions withClock(Clock newClock) {
        return new CleanupOptions(keep, olderThan, confirm, orphanGrace, newClock);
    }

    /** Parses an age such as {@code 30s}, {@code 15m}, {@code 12h}, {@code 7d} or {@code 2w}. */
    public static Duration parseAge(String field, String text) {
        Matcher matcher = AGE.matcher(text == null ? "" : text.trim());
        if (!matcher.matches()) {
            throw new BadRequest(field + ": '" + text + "' is not an age; use a whole number and one of s, m, h, d, w"
                    + " (e.g. 7d)");
        }
        long amount = Long.parseLong(matcher.group(1));
        return switch (matcher.group(2)) {
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            case "d" -> Duration.ofDays(amount);
            default -> Duration.ofDays(amount * 7);
        };
    }
}

package dev.omnigraph.engine.read;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The one text spelling of engine values that have no JSON type of their own, shared by query results, export and
 * every HTTP/CLI rendering. A DateTime is always printed with milliseconds, as upstream does:
 * {@code 2026-04-01T08:30:00.000Z} (never {@code …08:30:00Z}).
 */
public final class ValueText {
    private static final DateTimeFormatter DATE_TIME = DateTimeFormatter
            .ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.ROOT).withZone(ZoneOffset.UTC);

    private ValueText() {
    }

    /** Whether {@link #dateTime} spells this instant as ISO text (years 0–9999); others have no 4-digit year. */
    public static boolean hasIsoText(Instant instant) {
        int year = instant.atOffset(ZoneOffset.UTC).getYear();
        return year >= 0 && year <= 9999;
    }

    /** ISO-8601 UTC with exactly three fractional digits; outside years 0–9999, {@link Instant#toString()}. */
    public static String dateTime(Instant instant) {
        return hasIsoText(instant) ? DATE_TIME.format(instant) : instant.toString();
    }
}

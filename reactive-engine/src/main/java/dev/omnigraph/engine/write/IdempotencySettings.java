package dev.omnigraph.engine.write;

import java.time.Clock;
import java.time.Duration;
import java.time.format.DateTimeParseException;

/**
 * How long an idempotency key is remembered, and the clock that ages it. A key whose commit is older than the
 * window is simply not matched: the write runs again as a new one.
 */
public record IdempotencySettings(Duration window, Clock clock) {
    public static final Duration DEFAULT_WINDOW = Duration.ofHours(24);
    /** Overrides the default window, as an ISO-8601 duration ({@code PT1H}, {@code P7D}). */
    public static final String ENV = "OMNIGRAPH_IDEMPOTENCY_WINDOW";

    public IdempotencySettings {
        if (window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("the idempotency window must be positive, got " + window);
        }
    }

    public static IdempotencySettings fromEnvironment() {
        String value = System.getenv(ENV);
        if (value == null || value.isBlank()) {
            return new IdempotencySettings(DEFAULT_WINDOW, Clock.systemUTC());
        }
        try {
            return new IdempotencySettings(Duration.parse(value.trim()), Clock.systemUTC());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(ENV + " must be an ISO-8601 duration such as PT24H, got '" + value + "'");
        }
    }

    /** True when a commit made at {@code createdAtMicros} is still inside the window. */
    public boolean remembers(long createdAtMicros) {
        java.time.Instant instant = clock.instant();
        long now = instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000L;
        return now - createdAtMicros < window.toNanos() / 1_000L;
    }
}

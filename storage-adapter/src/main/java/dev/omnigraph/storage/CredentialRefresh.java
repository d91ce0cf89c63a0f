package dev.omnigraph.storage;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * When credentials that expire count as expiring: within {@link #margin()} of their expiry ({@value #MARGIN_PROPERTY}
 * in seconds, 300 by default — the margin within which the AWS SDK itself refreshes session credentials). A source
 * asks its supplier again then, and a kept Lance dataset opened with such credentials is closed so the next read
 * opens it again with fresh ones (Lance 7 keeps the options a dataset was opened with for its life).
 */
public final class CredentialRefresh {
    public static final String MARGIN_PROPERTY = "omnigraph.s3.credentialsRefreshSeconds";
    private static final long DEFAULT_MARGIN_SECONDS = 300;
    private static volatile Clock clock = Clock.systemUTC();

    private CredentialRefresh() {
    }

    public static Duration margin() {
        return Duration.ofSeconds(Math.max(0, Long.getLong(MARGIN_PROPERTY, DEFAULT_MARGIN_SECONDS)));
    }

    /** Whether credentials expiring at {@code expiresAt} should be replaced now; never for ones that do not expire. */
    public static boolean due(Optional<Instant> expiresAt) {
        return expiresAt.isPresent() && !clock.instant().plus(margin()).isBefore(expiresAt.get());
    }

    /** Tests: the clock expiry is judged by (a fixed clock makes "close to expiry" a step, not a wait). */
    static void useClock(Clock given) {
        clock = given;
    }
}

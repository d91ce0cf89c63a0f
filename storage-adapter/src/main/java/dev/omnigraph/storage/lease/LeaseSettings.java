package dev.omnigraph.storage.lease;

import dev.omnigraph.storage.RootLock;
import dev.omnigraph.storage.error.BadRequest;
import java.time.Clock;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;

/**
 * How a read-write open holds a root. {@code duration}: how long a lease lasts unrenewed (another process may take
 * it over after that); {@code renewEvery}: how often the holder renews it; {@code waitFor}: how long an open waits
 * for a held lease before it is refused (zero: refuse at once); {@code pollEvery}: how often a waiting open looks
 * again. {@code objectLease}: take the lease object even on a local root (shared filesystems whose OS locks are
 * not reliable, and tests); otherwise local roots use the OS file lock. {@code owner} names this process in the
 * lease; {@code clock} judges expiry (tests move it instead of sleeping); {@code advertise}: the URL where this
 * process takes writes, recorded in the lease object so other servers can forward writes to it. Nonsense values
 * are a {@code BadRequest}.
 */
public record LeaseSettings(Duration duration, Duration renewEvery, Duration waitFor, Duration pollEvery,
                            boolean objectLease, RootLock.Holder owner, Clock clock, Optional<String> advertise) {
    public static final Duration DEFAULT_DURATION = Duration.ofSeconds(30);
    /** ISO-8601 durations ({@code PT30S}); {@code OMNIGRAPH_LEASE=object} forces the lease object on local roots. */
    public static final String ENV_DURATION = "OMNIGRAPH_LEASE_DURATION";
    public static final String ENV_RENEW = "OMNIGRAPH_LEASE_RENEW";
    public static final String ENV_WAIT = "OMNIGRAPH_LEASE_WAIT";
    public static final String ENV_MODE = "OMNIGRAPH_LEASE";

    public LeaseSettings {
        requirePositive("lease duration", duration);
        requirePositive("lease renewal interval", renewEvery);
        requirePositive("lease poll interval", pollEvery);
        if (renewEvery.compareTo(duration) >= 0) {
            throw new BadRequest("the lease must be renewed more often than it lasts: renewal every "
                    + renewEvery + ", duration " + duration);
        }
        if (waitFor.isNegative()) {
            throw new BadRequest("the lease wait must not be negative, got " + waitFor);
        }
        java.util.Objects.requireNonNull(advertise, "advertise");
    }

    /** Without an advertised URL. */
    public LeaseSettings(Duration duration, Duration renewEvery, Duration waitFor, Duration pollEvery,
                         boolean objectLease, RootLock.Holder owner, Clock clock) {
        this(duration, renewEvery, waitFor, pollEvery, objectLease, owner, clock, Optional.empty());
    }

    /** Defaults: 30 s leases renewed every 10 s, no waiting, OS locks on local roots. */
    public static LeaseSettings defaults() {
        return of(DEFAULT_DURATION);
    }

    /** Leases of {@code duration}, renewed every third of it, no waiting, OS locks on local roots. */
    public static LeaseSettings of(Duration duration) {
        return new LeaseSettings(duration, duration.dividedBy(3), Duration.ZERO, pollFor(duration), false,
                RootLock.Holder.current(), Clock.systemUTC());
    }

    public static LeaseSettings fromEnvironment() {
        return fromEnvironment(System.getenv());
    }

    static LeaseSettings fromEnvironment(Map<String, String> env) {
        LeaseSettings settings = of(duration(env, ENV_DURATION, DEFAULT_DURATION));
        if (env.get(ENV_RENEW) != null) {
            settings = settings.renewingEvery(duration(env, ENV_RENEW, settings.renewEvery()));
        }
        settings = settings.waiting(duration(env, ENV_WAIT, Duration.ZERO));
        String mode = env.getOrDefault(ENV_MODE, "auto").trim();
        if (!mode.equals("auto") && !mode.equals("object")) {
            throw new BadRequest(ENV_MODE + " must be 'auto' or 'object', got '" + mode + "'");
        }
        return mode.equals("object") ? settings.withObjectLease() : settings;
    }

    public LeaseSettings renewingEvery(Duration every) {
        return new LeaseSettings(duration, every, waitFor, pollEvery, objectLease, owner, clock, advertise);
    }

    public LeaseSettings waiting(Duration wait) {
        return new LeaseSettings(duration, renewEvery, wait, pollEvery, objectLease, owner, clock, advertise);
    }

    public LeaseSettings polling(Duration every) {
        return new LeaseSettings(duration, renewEvery, waitFor, every, objectLease, owner, clock, advertise);
    }

    public LeaseSettings withObjectLease() {
        return new LeaseSettings(duration, renewEvery, waitFor, pollEvery, true, owner, clock, advertise);
    }

    public LeaseSettings ownedBy(RootLock.Holder holder) {
        return new LeaseSettings(duration, renewEvery, waitFor, pollEvery, objectLease, holder, clock, advertise);
    }

    public LeaseSettings withClock(Clock judge) {
        return new LeaseSettings(duration, renewEvery, waitFor, pollEvery, objectLease, owner, judge, advertise);
    }

    /** Records {@code url} in the lease while this process holds it: where other servers send their writes. */
    public LeaseSettings advertising(String url) {
        return new LeaseSettings(duration, renewEvery, waitFor, pollEvery, objectLease, owner, clock,
                Optional.of(url));
    }

    private static Duration pollFor(Duration duration) {
        Duration tenth = duration.dividedBy(10);
        return tenth.compareTo(Duration.ofSeconds(1)) < 0 && !tenth.isZero() ? tenth : Duration.ofSeconds(1);
    }

    private static Duration duration(Map<String, String> env, String name, Duration fallback) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return Duration.parse(value.trim());
        } catch (DateTimeParseException e) {
            throw new BadRequest(name + " must be an ISO-8601 duration such as PT30S, got '" + value + "'");
        }
    }

    private static void requirePositive(String what, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new BadRequest("the " + what + " must be positive, got " + value);
        }
    }
}

package dev.omnigraph.http.server;

import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.lease.LeaseSettings;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * How a server shares one graph root with other servers. {@code advertiseUrl}: where this server takes writes,
 * recorded in the writer lease while it holds it; {@code followerWrites}: what a follower does with a write;
 * {@code maxStaleness}: how often a follower checks the manifest version for new commits (the bound reported in
 * {@code /healthz}); {@code minCommitTimeout}: how long a read that names a minimum commit may wait for it;
 * {@code lease}: the lease settings (else from the environment; embedders and tests set an owner per server).
 */
public record ScaleOut(Optional<String> advertiseUrl, FollowerWrites followerWrites, Duration maxStaleness,
                       Duration minCommitTimeout, Optional<LeaseSettings> lease) {
    public static final Duration DEFAULT_STALENESS = Duration.ofSeconds(1);
    public static final Duration DEFAULT_MIN_COMMIT_TIMEOUT = Duration.ofSeconds(10);
    public static final ScaleOut DEFAULT = new ScaleOut(Optional.empty(), FollowerWrites.FORWARD, DEFAULT_STALENESS,
            DEFAULT_MIN_COMMIT_TIMEOUT, Optional.empty());

    /** What a follower does with a write it cannot apply. */
    public enum FollowerWrites {
        /** Sends it to the lease holder's advertised URL and answers the holder's answer (503 when none is known). */
        FORWARD,
        /** Answers 307 with {@code Location} on the holder's advertised URL (503 when none is known). */
        REDIRECT,
        /** Answers 503 {@code lease_lost} with {@code Retry-After}. */
        REFUSE;

        public static FollowerWrites parse(String value) {
            try {
                return valueOf(value.strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new BadRequest("follower writes must be forward, redirect or refuse, got '" + value + "'");
            }
        }
    }

    public ScaleOut {
        advertiseUrl = advertiseUrl.map(ScaleOut::checkedUrl);
        if (maxStaleness.isNegative() || maxStaleness.isZero()) {
            throw new BadRequest("the maximum staleness must be positive, got " + maxStaleness);
        }
        if (minCommitTimeout.isNegative()) {
            throw new BadRequest("the minimum-commit timeout must not be negative, got " + minCommitTimeout);
        }
    }

    public ScaleOut advertising(String url) {
        return new ScaleOut(Optional.of(url), followerWrites, maxStaleness, minCommitTimeout, lease);
    }

    public ScaleOut withFollowerWrites(FollowerWrites mode) {
        return new ScaleOut(advertiseUrl, mode, maxStaleness, minCommitTimeout, lease);
    }

    public ScaleOut withMaxStaleness(Duration bound) {
        return new ScaleOut(advertiseUrl, followerWrites, bound, minCommitTimeout, lease);
    }

    public ScaleOut withMinCommitTimeout(Duration timeout) {
        return new ScaleOut(advertiseUrl, followerWrites, maxStaleness, timeout, lease);
    }

    public ScaleOut withLease(LeaseSettings settings) {
        return new ScaleOut(advertiseUrl, followerWrites, maxStaleness, minCommitTimeout, Optional.of(settings));
    }

    /** The lease this server opens its graphs with: the given or environment settings, with the advertised URL. */
    LeaseSettings leaseSettings() {
        LeaseSettings base = lease.orElseGet(LeaseSettings::fromEnvironment);
        return advertiseUrl.map(base::advertising).orElse(base);
    }

    /** An absolute http(s) URL without a query or fragment, with no trailing slash. */
    private static String checkedUrl(String url) {
        URI parsed;
        try {
            parsed = URI.create(url.strip());
        } catch (IllegalArgumentException e) {
            throw new BadRequest("the advertised URL is not a URL: '" + url + "'");
        }
        if (parsed.getScheme() == null || !(parsed.getScheme().equals("http") || parsed.getScheme().equals("https"))
                || parsed.getHost() == null || parsed.getRawQuery() != null || parsed.getRawFragment() != null) {
            throw new BadRequest("the advertised URL must be http(s)://host[:port][/prefix], got '" + url + "'");
        }
        String text = parsed.toString();
        return text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
    }
}

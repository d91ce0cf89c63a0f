package dev.omnigraph.http.cli;

import dev.omnigraph.http.server.ScaleOut;
import picocli.CommandLine.Option;

/**
 * The {@code serve} flags for several servers on one graph root (an {@code s3://} root, or a shared directory
 * under {@code OMNIGRAPH_LEASE=object}). An absent flag keeps the default of {@link ScaleOut}.
 */
final class ScaleOutOptions {
    @Option(names = "--advertise-url", paramLabel = "<url>",
            description = "Where other servers reach this one, e.g. http://10.0.0.5:8080: recorded in the writer lease "
                    + "while this server holds it, so followers can forward writes here.")
    String advertiseUrl;

    @Option(names = "--follower-writes", paramLabel = "forward|redirect|refuse",
            description = "What a follower does with a write: forward it to the lease holder's advertised URL and "
                    + "answer its answer, redirect (307 to it), or refuse (503 with Retry-After). Without an "
                    + "advertised holder URL a follower refuses (default: forward).")
    String followerWrites;

    @Option(names = "--max-staleness", paramLabel = "<duration>",
            description = "A follower checks the manifest version for new commits at least this often, e.g. 500ms, "
                    + "1s (default: 1s); reported in /healthz.")
    String maxStaleness;

    @Option(names = "--min-commit-timeout", paramLabel = "<duration>",
            description = "How long a read naming a minimum commit (X-Omnigraph-Min-Commit) waits for it before a 504 "
                    + "(default: 10s).")
    String minCommitTimeout;

    static ScaleOut of(ScaleOutOptions options) {
        ScaleOut out = ScaleOut.DEFAULT;
        if (options == null) return out;
        if (options.advertiseUrl != null) out = out.advertising(options.advertiseUrl);
        if (options.followerWrites != null) out = out.withFollowerWrites(ScaleOut.FollowerWrites.parse(options.followerWrites));
        if (options.maxStaleness != null) {
            out = out.withMaxStaleness(QueryLimitOptions.duration("--max-staleness", options.maxStaleness));
        }
        if (options.minCommitTimeout != null) {
            out = out.withMinCommitTimeout(QueryLimitOptions.duration("--min-commit-timeout", options.minCommitTimeout));
        }
        return out;
    }
}

package dev.omnigraph.engine;

/**
 * How far a load has read its input: bytes and lines (records, and any blank lines) so far, reported after each
 * chunk read, on the thread that read it. A listener must be quick and must not block: it runs on the engine's
 * storage scheduler. The entities committed are the load's {@code WriteOutcome}, once it published.
 */
public record LoadProgress(long bytesRead, long linesRead) {
}

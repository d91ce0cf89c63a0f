package dev.omnigraph.storage.error;

/**
 * Lance refused a staged commit because a concurrent transaction changed what it read. Nothing landed.
 * {@code retryable} is Lance's own classification (a same-fragment delete/update race); either way the
 * staged transaction is spent and a retry must re-stage from a fresh snapshot.
 */
public final class CommitConflict extends OmnigraphException {
    private final String path;
    private final long readVersion;
    private final boolean retryable;

    public CommitConflict(String path, long readVersion, boolean retryable, Throwable cause) {
        super(ErrorCode.CONFLICT, "commit conflict on " + datasetName(path) + " at read version " + readVersion
                + (retryable ? " (a concurrent change touched the same rows; re-stage from a fresh snapshot)"
                             : " (incompatible with a concurrent transaction)"), cause);
        this.path = path;
        this.readVersion = readVersion;
        this.retryable = retryable;
    }

    public String path() { return path; }

    /** The dataset as a client may see it: its place inside the graph ({@code nodes/…}), never the absolute path. */
    public String dataset() { return datasetName(path); }

    private static String datasetName(String path) {
        String trimmed = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        int last = trimmed.lastIndexOf('/');
        int previous = last > 0 ? trimmed.lastIndexOf('/', last - 1) : -1;
        return trimmed.substring(previous + 1);
    }
    public long readVersion() { return readVersion; }
    public boolean retryable() { return retryable; }
}

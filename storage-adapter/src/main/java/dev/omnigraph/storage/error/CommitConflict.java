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
        super(ErrorCode.CONFLICT, "commit conflict on " + path + " at read version " + readVersion
                + (retryable ? " (a concurrent change touched the same rows; re-stage from a fresh snapshot)"
                             : " (incompatible with a concurrent transaction)"), cause);
        this.path = path;
        this.readVersion = readVersion;
        this.retryable = retryable;
    }

    public String path() { return path; }
    public long readVersion() { return readVersion; }
    public boolean retryable() { return retryable; }
}

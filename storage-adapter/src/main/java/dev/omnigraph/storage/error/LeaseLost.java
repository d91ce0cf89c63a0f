package dev.omnigraph.storage.error;

/**
 * This process no longer holds the writer lease of the graph (it expired unrenewed, another process took it over,
 * or the handle released it), so it must not publish: the write is refused and nothing of it becomes visible.
 * Send writes to the process that holds the lease, or open the graph again.
 */
public final class LeaseLost extends OmnigraphException {
    private final long epoch;

    public LeaseLost(long epoch, String message) {
        super(ErrorCode.LEASE_LOST, message + " (writer epoch " + epoch + "; send writes to the lease holder or open"
                + " the graph read-write again)", null);
        this.epoch = epoch;
    }

    /** The epoch this process held when it learned the lease was gone. */
    public long epoch() {
        return epoch;
    }
}

package dev.omnigraph.recovery;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Decides, once, whether a sidecar write that its writer may abandon ({@link SidecarStore#writeUnlessAbandoned})
 * makes its bytes visible: the write claims the right to publish just before its rename, the writer abandons it
 * when the write stopped mattering; whichever comes first wins, so after a successful {@link #abandon()} the
 * sidecar's file can no longer be replaced by this write.
 */
public final class AbandonableWrite {
    private static final int OPEN = 0;
    private static final int PUBLISHING = 1;
    private static final int ABANDONED = 2;

    private final AtomicInteger state = new AtomicInteger(OPEN);

    /**
     * True when the write will never make its bytes visible (it had not reached its rename); false when its
     * rename already started, so the caller must wait for the write to end.
     */
    public boolean abandon() {
        return state.compareAndSet(OPEN, ABANDONED) || state.get() == ABANDONED;
    }

    /** Whether {@link #abandon()} won. */
    public boolean abandoned() {
        return state.get() == ABANDONED;
    }

    /** The write's side: true when it may publish (and can no longer be abandoned). */
    boolean claimPublish() {
        return state.compareAndSet(OPEN, PUBLISHING);
    }
}

package dev.omnigraph.storage;

/**
 * What a manifest publish needs to know about this process's writer tenure: its epoch, which every publish writes
 * into the {@code __manifest} stamp row, and whether the tenure still holds. A publish refuses (with
 * {@code LeaseLost}) when the manifest it would replace carries a higher epoch: a newer holder has fenced it.
 */
public interface WriterFence {
    /** No tenure: epoch 0. Publishers built without one (tests, tools on a fresh manifest) never outrank a holder. */
    WriterFence NONE = new WriterFence() {
        @Override
        public long epoch() {
            return 0;
        }

        @Override
        public void requireHeld() {
        }
    };

    /** The epoch this tenure publishes with. */
    long epoch();

    /** Throws {@code LeaseLost} when this process already knows its tenure is gone (no storage call). */
    void requireHeld();
}

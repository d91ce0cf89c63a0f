package dev.omnigraph.engine.write;

import dev.omnigraph.storage.error.ReadSetChanged;

/** Control signals between the pipeline's steps; none of them ever escapes the pipeline. */
final class PipelineSignals {
    private PipelineSignals() {
    }

    /** Wraps a failure after arming that left no effect (its intent already retired). */
    static final class EffectFree extends RuntimeException {
        EffectFree(RuntimeException cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    /**
     * The head moved before any effect and the change may be planned again; {@code unverifiedToken}: the write
     * was planned on this process's last known state, never checked live, so every write of the group (strict
     * ones too) is planned again on a verified token.
     */
    static final class Reprepare extends RuntimeException {
        private final ReadSetChanged reason;
        private final boolean unverifiedToken;

        Reprepare(ReadSetChanged reason) {
            this(reason, false);
        }

        Reprepare(ReadSetChanged reason, boolean unverifiedToken) {
            super(reason.getMessage(), null, false, false);
            this.reason = reason;
            this.unverifiedToken = unverifiedToken;
        }

        ReadSetChanged reason() {
            return reason;
        }

        boolean unverifiedToken() {
            return unverifiedToken;
        }
    }

    /** A write of the group was cancelled before any effect: the group is planned again without it. */
    static final class Regroup extends RuntimeException {
        Regroup() {
            super("a write of the group was cancelled before any effect", null, false, false);
        }
    }
}

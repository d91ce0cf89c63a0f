package dev.omnigraph.engine.merge;

import java.util.Locale;

/** What a merge did: nothing to bring over, the target had not moved since the base, or a three-way merge. */
public enum MergeOutcome {
    ALREADY_UP_TO_DATE, FAST_FORWARD, MERGED;

    /** The wire spelling ({@code already_up_to_date}, {@code fast_forward}, {@code merged}). */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}

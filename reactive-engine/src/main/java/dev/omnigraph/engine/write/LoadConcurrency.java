package dev.omnigraph.engine.write;

import dev.omnigraph.storage.error.BadRequest;

/**
 * {@code OMNIGRAPH_LOAD_CONCURRENCY}: how many tables a write stages at once (their fragment writes are independent;
 * the commits and the manifest publish stay in table order under the gates). A positive integer, default
 * {@value #DEFAULT}. Read and checked when a handle opens, so a bad value fails the open with a typed
 * {@link BadRequest} instead of the first write.
 */
public final class LoadConcurrency {
    public static final String ENV = "OMNIGRAPH_LOAD_CONCURRENCY";
    public static final int DEFAULT = 4;
    /** Far above any useful value: a guard against a typo that would start thousands of staging tasks. */
    static final int MAX = 256;

    private LoadConcurrency() {
    }

    /** The configured value; a bad one is refused with {@link BadRequest}. */
    public static int fromEnvironment() {
        return parse(System.getenv(ENV));
    }

    static int parse(String value) {
        if (value == null || value.isBlank()) {
            return DEFAULT;
        }
        int parsed;
        try {
            parsed = Integer.parseInt(value.trim());
        } catch (NumberFormatException notANumber) {
            parsed = 0;
        }
        if (parsed < 1 || parsed > MAX) {
            throw new BadRequest(ENV + " must be an integer from 1 to " + MAX + ", got '" + value + "'");
        }
        return parsed;
    }
}

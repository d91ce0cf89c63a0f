package dev.omnigraph.engine.write;

import dev.omnigraph.storage.error.BadRequest;

/** A write's idempotency key with the hash of the request it was sent with. */
public record IdempotentRequest(String key, String requestHash) {
    /** Longest accepted key (the common limit of HTTP idempotency-key implementations). */
    public static final int MAX_KEY_LENGTH = 255;

    /** Refuses an empty, overlong or non-printable-ASCII key; {@code field} names where it came from. */
    public static String validKey(String key, String field) {
        if (key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
            throw new BadRequest(field + " must be 1 to " + MAX_KEY_LENGTH + " characters long, got " + key.length());
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                throw new BadRequest(field + " must be printable ASCII; character " + (i + 1) + " is U+"
                        + String.format("%04X", (int) c));
            }
        }
        return key;
    }
}

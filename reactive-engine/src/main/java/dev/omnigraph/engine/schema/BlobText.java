package dev.omnigraph.engine.schema;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The text form of a Blob value in NDJSON, mutations and exports: {@code "base64:<payload>"} (standard alphabet,
 * padded; {@code "base64:"} is the empty blob). Any other string would be an external URI, which this engine does
 * not admit (deny-only, as the direct CLI upstream).
 */
public final class BlobText {
    public static final String PREFIX = "base64:";

    private BlobText() {}

    /** @throws IllegalArgumentException with a message saying what is wrong */
    public static byte[] decode(String text) {
        if (!text.startsWith(PREFIX)) {
            String shown = text.length() > 64 ? text.substring(0, 64) + "…" : text;
            throw new IllegalArgumentException("a Blob value must be \"base64:<payload>\"; external blob URIs are not"
                    + " allowed by this engine (got \"" + shown + "\")");
        }
        try {
            return Base64.getDecoder().decode(text.substring(PREFIX.length()).getBytes(StandardCharsets.US_ASCII));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid base64 in Blob value: " + e.getMessage());
        }
    }

    public static String encode(byte[] bytes) {
        return PREFIX + Base64.getEncoder().encodeToString(bytes);
    }
}

package dev.omnigraph.engine.write;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The SHA-256 of a write request as an idempotency key is matched against: length-prefixed fields (so no two
 * different field lists hash alike), then optionally the streamed body bytes as they pass. Not thread-safe: one
 * request, fed in order.
 */
public final class RequestHash {
    private final MessageDigest digest;

    private RequestHash(String writerKind) {
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-256", e);
        }
        field("omnigraph-request-v1").field(writerKind);
    }

    public static RequestHash of(String writerKind) {
        return new RequestHash(writerKind);
    }

    public RequestHash field(String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        digest.update(ByteBuffer.allocate(Integer.BYTES).putInt(bytes.length).array());
        digest.update(bytes);
        return this;
    }

    /** Parameter values in a canonical text: names sorted, each value tagged with its type. */
    public RequestHash params(Map<String, Object> params) {
        StringBuilder out = new StringBuilder();
        canonical(new TreeMap<>(params), out);
        return field(out.toString());
    }

    /** Body bytes as they stream past; the buffer's position is left untouched. */
    public void update(ByteBuffer chunk) {
        digest.update(chunk.duplicate());
    }

    public String finish() {
        return HexFormat.of().formatHex(digest.digest());
    }

    private static void canonical(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            new TreeMap<>(map).forEach((k, v) -> {
                out.append(k.toString().length()).append(':').append(k).append('=');
                canonical(v, out);
                out.append(',');
            });
            out.append('}');
        } else if (value instanceof List<?> list) {
            out.append('[');
            list.forEach(item -> {
                canonical(item, out);
                out.append(',');
            });
            out.append(']');
        } else if (value instanceof byte[] bytes) {
            out.append("bytes:").append(HexFormat.of().formatHex(bytes));
        } else {
            String text = value.toString();
            out.append(value.getClass().getSimpleName()).append(':').append(text.length()).append(':').append(text);
        }
    }
}

package dev.omnigraph.storage.lease;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.omnigraph.storage.RootLock;
import dev.omnigraph.storage.error.StorageFault;
import java.io.IOException;
import java.time.Instant;

/**
 * The content of the lease object: who holds the root, with which epoch, until when (ms since the epoch, judged by
 * the clock of whoever reads it), and whether the holder gave it back. The object is never deleted: a released
 * lease keeps its epoch so the next holder's is higher. {@code advertise}: where the holder takes writes (its
 * server's URL), or null when it said nothing.
 */
record LeaseRecord(RootLock.Holder owner, long epoch, long expiresAtMillis, boolean released, String advertise) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Whether another owner may take it over at {@code nowMillis}. */
    boolean free(long nowMillis) {
        return released || expiresAtMillis <= nowMillis;
    }

    LeaseRecord renewedUntil(long expiry) {
        return new LeaseRecord(owner, epoch, expiry, false, advertise);
    }

    LeaseRecord releasedAt(long nowMillis) {
        return new LeaseRecord(owner, epoch, nowMillis, true, advertise);
    }

    /** What a reader may know of this lease (a server forwarding writes to its holder). */
    LeaseHolder view() {
        return new LeaseHolder(owner.describe(), epoch, Instant.ofEpochMilli(expiresAtMillis), released,
                java.util.Optional.ofNullable(advertise));
    }

    String describe() {
        return owner.describe() + ", writer epoch " + epoch + ", lease valid until "
                + Instant.ofEpochMilli(expiresAtMillis);
    }

    byte[] bytes() {
        try {
            return JSON.writeValueAsBytes(JSON.createObjectNode().put("pid", owner.pid()).put("host", owner.host())
                    .put("since", owner.since().toString()).put("epoch", epoch).put("expires_at_ms", expiresAtMillis)
                    .put("released", released).put("advertise", advertise));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static LeaseRecord parse(String key, byte[] bytes) {
        try {
            JsonNode node = JSON.readTree(bytes);
            if (node == null || !node.path("epoch").canConvertToLong() || !node.path("expires_at_ms").canConvertToLong()
                    || !node.path("pid").canConvertToLong()) {
                throw new StorageFault("the writer lease " + key + " is unreadable: " + new String(bytes,
                        java.nio.charset.StandardCharsets.UTF_8), null);
            }
            return new LeaseRecord(new RootLock.Holder(node.get("pid").asLong(), node.path("host").asText(),
                    Instant.parse(node.path("since").asText())), node.get("epoch").asLong(),
                    node.get("expires_at_ms").asLong(), node.path("released").asBoolean(),
                    node.path("advertise").isTextual() ? node.get("advertise").asText() : null);
        } catch (IOException | java.time.DateTimeException e) {
            throw new StorageFault("the writer lease " + key + " is unreadable: " + e.getMessage(), e);
        }
    }
}

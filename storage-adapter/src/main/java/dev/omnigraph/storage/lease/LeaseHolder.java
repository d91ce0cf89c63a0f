package dev.omnigraph.storage.lease;

import java.time.Instant;
import java.util.Optional;

/**
 * The writer lease of a root as a reader sees it: who holds it ({@code holder}, for messages), its epoch, until
 * when, whether it was given back, and the URL its holder advertised for writes (a server started with
 * {@code --advertise-url}). A lease that is released or past its expiry has no live holder.
 */
public record LeaseHolder(String holder, long epoch, Instant expiresAt, boolean released,
                          Optional<String> advertisedUrl) {
    /** Whether a live holder has it at {@code now} (not given back, not expired). */
    public boolean heldAt(Instant now) {
        return !released && expiresAt.isAfter(now);
    }
}

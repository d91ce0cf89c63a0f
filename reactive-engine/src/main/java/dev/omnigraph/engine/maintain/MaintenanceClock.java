package dev.omnigraph.engine.maintain;

import java.time.Instant;

/** The commit time of maintenance publishes, in the manifest's unit (µs since the epoch). */
final class MaintenanceClock {
    private MaintenanceClock() {
    }

    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000L;
    }
}

package dev.omnigraph.storage.testing;

import dev.omnigraph.storage.LanceTableStorage;
import dev.omnigraph.storage.StorageScheduler;

/**
 * Shared storage plumbing for tests. One scheduler per test JVM (threads are cheap to keep, and Lance's native
 * library loads once per JVM anyway); a fresh {@link LanceTableStorage} per test, whose close fails the test
 * when any Arrow buffer leaked.
 */
public final class StorageFixture {
    private static final StorageScheduler SCHEDULER = StorageScheduler.create(8, 10_000);

    private StorageFixture() {
    }

    public static StorageScheduler scheduler() {
        return SCHEDULER;
    }

    public static LanceTableStorage newTableStorage() {
        return new LanceTableStorage(SCHEDULER);
    }
}

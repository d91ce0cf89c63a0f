package dev.omnigraph.storage;

/**
 * The identity of one Lance transaction: the version it was planned against and its uuid. A commit is exact
 * when it lands at {@code readVersion + 1} carrying this uuid.
 */
public record TransactionIdentity(long readVersion, String uuid) {
}

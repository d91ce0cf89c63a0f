package dev.omnigraph.storage;

import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One pinned version of a table ref, with the schema every batch written to it must be built from, its row count,
 * and its fragment count (scan cost grows with fragments; maintenance compacts when it gets high).
 */
public record TableSnapshot(TableRef ref, long version, Schema schema, long rowCount, int fragmentCount) {
}

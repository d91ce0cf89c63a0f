package dev.omnigraph.storage;

import org.apache.arrow.vector.types.pojo.Schema;

/** One pinned version of a table ref, with the schema every batch written to it must be built from. */
public record TableSnapshot(TableRef ref, long version, Schema schema, long rowCount) {
}

/**
 * Row deltas between exact table versions, and the two read surfaces built on them: a commit's entity diff
 * against its first parent ({@link dev.omnigraph.engine.diff.CommitDiff}) and the resumable change feed of a
 * branch ({@link dev.omnigraph.engine.diff.ChangeFeed}). {@link dev.omnigraph.engine.diff.RowDeltas} is the engine
 * API a merge writer reuses: it streams, by {@code id}, what changed between two pins of one table.
 */
package dev.omnigraph.engine.diff;

/**
 * Indexes: which ones the schema implies ({@link dev.omnigraph.engine.schema.IndexPlan}), building them exactly
 * ({@link dev.omnigraph.engine.index.IndexBuilds}, reusable by other maintenance writers) and the
 * {@code EnsureIndices} writer ({@link dev.omnigraph.engine.index.IndexEnsurer}).
 */
package dev.omnigraph.engine.index;

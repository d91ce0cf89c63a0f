/**
 * Maintenance writers: {@link dev.omnigraph.engine.maintain.Optimizer} (compaction as one tracked write) and
 * {@link dev.omnigraph.engine.maintain.Repair} (publishing drift no sidecar covers, after classifying it).
 */
package dev.omnigraph.engine.maintain;

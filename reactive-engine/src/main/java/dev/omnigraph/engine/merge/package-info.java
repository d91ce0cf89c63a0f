/**
 * The three-way branch merge: merge base from the commit lineage, per-type classification, the row rules over the
 * row deltas of {@code engine.diff}, conflicts and validation of the merged image, all as a planner for the shared
 * write pipeline ({@code engine.write}) on the target branch.
 */
package dev.omnigraph.engine.merge;

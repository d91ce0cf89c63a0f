/**
 * Graph branch controls: create (lazy: no table is copied, the branch reads through its parent's pins), list and
 * delete. A graph branch is a Lance branch of {@code __manifest}; its per-table forks appear on first write
 * ({@link dev.omnigraph.engine.write}) and are reclaimed, best effort, when the branch is deleted.
 */
package dev.omnigraph.engine.branch;

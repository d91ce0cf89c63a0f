/**
 * Schema evolution: {@link dev.omnigraph.engine.evolve.SchemaPlanner} diffs the accepted schema against a new
 * {@code .pg} by stable identity into ordered {@link dev.omnigraph.engine.evolve.PlanStep}s;
 * {@link dev.omnigraph.engine.evolve.SchemaApplier} applies a plan as one exact, recoverable write (staged
 * overwrites, version-one creates, staged contract files, one publish, promotion), and
 * {@link dev.omnigraph.engine.evolve.SchemaApplyRecovery} finishes or undoes an interrupted apply at read-write open.
 */
package dev.omnigraph.engine.evolve;

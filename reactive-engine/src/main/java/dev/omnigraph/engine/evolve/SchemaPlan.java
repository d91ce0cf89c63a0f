package dev.omnigraph.engine.evolve;

import dev.omnigraph.engine.schema.SchemaFiles;
import dev.omnigraph.engine.schema.CatalogTable;
import java.util.List;

/**
 * The plan from the accepted schema to {@code target}: ordered steps, one migration per surviving table, the
 * tables to create (version-one datasets) and the accepted table keys to drop. An empty plan is a no-op.
 */
public record SchemaPlan(SchemaFiles.Accepted accepted, SchemaFiles.Accepted target, List<PlanStep> steps,
                         List<TableMigration> migrations, List<CatalogTable> created, List<String> dropped) {
    public SchemaPlan {
        steps = List.copyOf(steps);
        migrations = List.copyOf(migrations);
        created = List.copyOf(created);
        dropped = List.copyOf(dropped);
    }

    /** True when the target's identity IR is the accepted one: applying changes nothing and commits nothing. */
    public boolean isNoop() {
        return accepted.state().equals(target.state());
    }

    public boolean losesData() {
        return steps.stream().anyMatch(step -> step.effect() == PlanStep.Effect.LOSES_DATA);
    }

    /** Migrations whose rows are read (to rewrite or to check). */
    List<TableMigration> readsRows() {
        return migrations.stream().filter(TableMigration::needsRows).toList();
    }
}

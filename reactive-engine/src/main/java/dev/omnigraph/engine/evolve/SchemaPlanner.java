package dev.omnigraph.engine.evolve;

import dev.omnigraph.engine.schema.SchemaFiles;
import dev.omnigraph.engine.evolve.PlanStep.Effect;
import dev.omnigraph.engine.evolve.PlanStep.Kind;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.SchemaCompiler;
import dev.omnigraph.engine.schema.SchemaIr;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Diffs the accepted schema against a new {@code .pg} by stable identity (a type or property keeps its identity
 * under its name or through {@code @rename_from("Old")}). Pure: it reads nothing but the two schemas and the
 * accepted tables' row counts (a rule that is only safe on an empty table is decided by them), and refuses an
 * unsupported change with a {@code ValidationError} that gives the position in the new source.
 */
public final class SchemaPlanner {
    private SchemaPlanner() {
    }

    /** @param rowCounts accepted table key → rows at the published pin */
    public static SchemaPlan plan(SchemaFiles.Accepted accepted, String source, Map<String, Long> rowCounts) {
        // A source that does not parse or check fails here, with its own positions, before anything else.
        SchemaIr ir = SchemaIr.evolve(SchemaCompiler.compile(source), accepted.ir());
        SchemaFiles.Accepted target = SchemaFiles.Accepted.compile(source, ir);
        SourcePositions positions = new SourcePositions(source);
        List<PlanStep> steps = new ArrayList<>();
        List<TableMigration> migrations = new ArrayList<>();
        List<CatalogTable> created = new ArrayList<>();
        List<String> dropped = new ArrayList<>();
        Map<Long, CatalogTable> acceptedById = new HashMap<>();
        accepted.catalog().tables().forEach(table -> acceptedById.put(table.typeId(), table));
        List<CatalogTable> targets = new ArrayList<>(target.catalog().tables());
        targets.sort(Comparator.comparing(CatalogTable::tableKey));
        for (CatalogTable table : targets) {
            CatalogTable old = acceptedById.remove(table.typeId());
            if (old == null) {
                steps.add(new PlanStep(Kind.ADD_TYPE, table.typeName(), kind(table) + " type with an empty dataset",
                        Effect.METADATA));
                created.add(table);
                continue;
            }
            if (!old.typeName().equals(table.typeName())) {
                steps.add(new PlanStep(Kind.RENAME_TYPE, table.typeName(), "renamed from " + old.typeName()
                        + " (same identity and dataset)", Effect.METADATA));
            }
            long rows = rowCounts.getOrDefault(old.tableKey(), 0L);
            migrations.add(new TableDiff(old, table, rows, positions, steps, accepted.ir(), ir).migration());
        }
        acceptedById.values().stream().sorted(Comparator.comparing(CatalogTable::tableKey)).forEach(old -> {
            long rows = rowCounts.getOrDefault(old.tableKey(), 0L);
            steps.add(new PlanStep(Kind.DROP_TYPE, old.typeName(), "drops the " + kind(old) + " type and its " + rows
                    + " row(s)", rows > 0 ? Effect.LOSES_DATA : Effect.METADATA));
            dropped.add(old.tableKey());
        });
        interfaceSteps(accepted.ir(), ir, steps);
        return new SchemaPlan(accepted, target, steps, migrations, created, dropped);
    }

    private static void interfaceSteps(SchemaIr accepted, SchemaIr target, List<PlanStep> steps) {
        target.interfaces().stream().filter(i -> accepted.interfaces().stream().noneMatch(o -> o.typeId() == i.typeId()))
                .forEach(i -> steps.add(new PlanStep(Kind.ADD_TYPE, i.name(), "interface", Effect.METADATA)));
        accepted.interfaces().stream().filter(i -> target.interfaces().stream().noneMatch(o -> o.typeId() == i.typeId()))
                .forEach(i -> steps.add(new PlanStep(Kind.DROP_TYPE, i.name(), "interface", Effect.METADATA)));
    }

    static String kind(CatalogTable table) {
        return table instanceof NodeTable ? "node" : table instanceof EdgeTable ? "edge" : "table";
    }
}

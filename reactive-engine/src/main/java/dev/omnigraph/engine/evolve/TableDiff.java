package dev.omnigraph.engine.evolve;

import dev.omnigraph.engine.evolve.PlanStep.Effect;
import dev.omnigraph.engine.evolve.PlanStep.Kind;
import dev.omnigraph.engine.schema.Annotation;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.Constraint;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.Property;
import dev.omnigraph.engine.schema.PropertyType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/** The diff of one table that keeps its identity: its property, constraint and metadata steps and its migration. */
final class TableDiff {
    private final CatalogTable old;
    private final CatalogTable table;
    private final long rows;
    private final SourcePositions positions;
    private final List<PlanStep> steps;
    private final dev.omnigraph.engine.schema.SchemaIr acceptedIr;
    private final dev.omnigraph.engine.schema.SchemaIr targetIr;
    private boolean validate;

    TableDiff(CatalogTable old, CatalogTable table, long rows, SourcePositions positions, List<PlanStep> steps,
              dev.omnigraph.engine.schema.SchemaIr acceptedIr, dev.omnigraph.engine.schema.SchemaIr targetIr) {
        this.acceptedIr = acceptedIr;
        this.targetIr = targetIr;
        this.old = old;
        this.table = table;
        this.rows = rows;
        this.positions = positions;
        this.steps = steps;
    }

    TableMigration migration() {
        Map<String, ColumnSource> columns = new LinkedHashMap<>();
        for (Property property : properties(table)) {
            columns.put(property.name(), column(property));
        }
        Set<Long> kept = new TreeSet<>(table.propertyIds().values());
        for (Property gone : properties(old)) {
            if (!kept.contains(old.propertyIds().get(gone.name()))) {
                steps.add(new PlanStep(Kind.DROP_PROPERTY, old.typeName() + "." + gone.name(), "drops the column from "
                        + rows + " row(s)", rows > 0 ? Effect.LOSES_DATA : Effect.REWRITES));
            }
        }
        constraints();
        endpoints();
        if (!annotations(old).equals(annotations(table))) {
            steps.add(new PlanStep(Kind.CHANGE_METADATA, table.typeName(), "annotations " + annotations(old) + " → "
                    + annotations(table), Effect.METADATA));
        }
        boolean rewrite = !old.arrowSchema().equals(table.arrowSchema());
        return new TableMigration(old.tableKey(), table, columns, rewrite, validate && rows > 0);
    }

    private ColumnSource column(Property property) {
        long id = table.propertyIds().get(property.name());
        Optional<Property> before = properties(old).stream()
                .filter(p -> old.propertyIds().get(p.name()) == id).findFirst();
        String target = table.typeName() + "." + property.name();
        if (before.isEmpty()) {
            Object fill = Defaults.of(property, positions, table.typeName());
            if (fill == null && !property.nullable() && rows > 0) {
                throw positions.refuse(table.typeName(), property.name(), "OG-MF-103", "a required property added to "
                        + table.typeName() + ", which has " + rows + " row(s), needs a @default(...) or '?'");
            }
            steps.add(new PlanStep(Kind.ADD_PROPERTY, target, property.typeSpelling()
                    + (fill == null ? ", existing rows read null" : ", existing rows get " + fill), Effect.REWRITES));
            return new ColumnSource.Constant(fill);
        }
        Property was = before.get();
        if (!was.name().equals(property.name())) {
            steps.add(new PlanStep(Kind.RENAME_PROPERTY, target, "renamed from " + was.name(), Effect.REWRITES));
        }
        if (!was.type().equals(property.type())) {
            typeChange(was, property, target);
        }
        if (was.nullable() && !property.nullable()) {
            throw positions.refuse(table.typeName(), property.name(), "OG-MF-104",
                    "a nullable property cannot become required");
        }
        if (!was.nullable() && property.nullable()) {
            steps.add(new PlanStep(Kind.CHANGE_NULLABILITY, target, "becomes nullable", Effect.REWRITES));
        }
        if (!withoutRenames(was.annotations()).equals(withoutRenames(property.annotations()))) {
            steps.add(new PlanStep(Kind.CHANGE_METADATA, target, "annotations", Effect.METADATA));
        }
        return new ColumnSource.FromColumn(was.name(), property.type());
    }

    private void typeChange(Property was, Property now, String target) {
        if (was.type() instanceof PropertyType.EnumOf before && now.type() instanceof PropertyType.EnumOf after
                && after.values().containsAll(before.values())) {
            steps.add(new PlanStep(Kind.CHANGE_PROPERTY_TYPE, target, "enum widened to " + after.values(), Effect.METADATA));
            return;
        }
        if (Widening.allowed(was.type(), now.type())) {
            steps.add(new PlanStep(Kind.CHANGE_PROPERTY_TYPE, target, was.typeSpelling() + " → " + now.typeSpelling(),
                    Effect.REWRITES));
            return;
        }
        throw positions.refuse(table.typeName(), now.name(), "OG-MF-106", "cannot convert " + was.typeSpelling()
                + " to " + now.typeSpelling() + " (only enum widening and lossless widening are supported)");
    }

    private void constraints() {
        Set<String> before = canonical(old);
        Set<String> after = canonical(table);
        Optional<String> keyBefore = before.stream().filter(c -> c.startsWith("key")).findFirst();
        Optional<String> keyAfter = after.stream().filter(c -> c.startsWith("key")).findFirst();
        if (!keyBefore.equals(keyAfter) && rows > 0) {
            throw positions.refuse(table.typeName(), null, "OG-MF-105", "@key of " + table.typeName()
                    + " cannot change while it has " + rows + " row(s)");
        }
        for (Constraint c : constraintsOf(table)) {
            if (!before.contains(canon(c, table))) {
                boolean index = c instanceof Constraint.Index;
                if (!index) validate = true;
                steps.add(new PlanStep(index ? Kind.ADD_INDEX : Kind.ADD_CONSTRAINT, table.typeName(), describe(c),
                        index ? Effect.METADATA : Effect.VALIDATES));
            }
        }
        for (Constraint c : constraintsOf(old)) {
            if (!after.contains(canon(c, old))) {
                steps.add(new PlanStep(c instanceof Constraint.Index ? Kind.DROP_INDEX : Kind.DROP_CONSTRAINT,
                        table.typeName(), describe(c), Effect.METADATA));
            }
        }
    }

    private void endpoints() {
        if (old instanceof EdgeTable was && table instanceof EdgeTable now) {
            if (!was.type().cardinality().equals(now.type().cardinality())) {
                validate = true;
                steps.add(new PlanStep(Kind.ADD_CONSTRAINT, now.typeName(), "cardinality " + now.type().cardinality(),
                        Effect.VALIDATES));
            }
            // Compared by the node types' stable ids, so renaming a node type keeps its edges.
            dev.omnigraph.engine.schema.SchemaIr.EdgeIr before = acceptedIr.edge(was.typeName()).orElseThrow();
            dev.omnigraph.engine.schema.SchemaIr.EdgeIr after = targetIr.edge(now.typeName()).orElseThrow();
            boolean moved = before.fromType().typeId() != after.fromType().typeId()
                    || before.toType().typeId() != after.toType().typeId();
            if (moved && rows > 0) {
                throw positions.refuse(now.typeName(), null, "OG-MF-107", "the endpoints of " + now.typeName()
                        + " cannot change while it has " + rows + " row(s)");
            }
        }
    }

    private static Set<String> canonical(CatalogTable t) {
        Set<String> out = new TreeSet<>();
        constraintsOf(t).forEach(c -> out.add(canon(c, t)));
        return out;
    }

    /** A constraint with property names replaced by stable ids, so a rename does not look like a new rule. */
    private static String canon(Constraint c, CatalogTable t) {
        java.util.function.Function<List<String>, String> ids = names -> names.stream()
                .map(n -> String.valueOf(t.propertyIds().getOrDefault(n, -1L)) + (t.propertyIds().containsKey(n) ? "" : n))
                .toList().toString();
        if (c instanceof Constraint.Key k) return "key" + ids.apply(k.properties());
        if (c instanceof Constraint.Unique u) return "unique" + ids.apply(u.properties());
        if (c instanceof Constraint.Index i) return "index" + ids.apply(i.properties());
        if (c instanceof Constraint.Range r) return "range" + ids.apply(List.of(r.property())) + r.min() + ".." + r.max();
        Constraint.Check ch = (Constraint.Check) c;
        return "check" + ids.apply(List.of(ch.property())) + ch.pattern();
    }

    private static String describe(Constraint c) {
        if (c instanceof Constraint.Key k) return "@key" + k.properties();
        if (c instanceof Constraint.Unique u) return "@unique" + u.properties();
        if (c instanceof Constraint.Index i) return "@index" + i.properties();
        if (c instanceof Constraint.Range r) return "@range(" + r.property() + ")";
        return "@check(" + ((Constraint.Check) c).property() + ")";
    }

    private static List<Property> properties(CatalogTable t) {
        return t instanceof NodeTable n ? n.type().properties() : ((EdgeTable) t).type().properties();
    }

    private static List<Constraint> constraintsOf(CatalogTable t) {
        return t instanceof NodeTable n ? n.type().constraints() : ((EdgeTable) t).type().constraints();
    }

    private static List<Annotation> annotations(CatalogTable t) {
        return withoutRenames(t instanceof NodeTable n ? n.type().annotations() : ((EdgeTable) t).type().annotations());
    }

    /** {@code @rename_from} only carries identity across one apply; it is not a metadata change. */
    private static List<Annotation> withoutRenames(List<Annotation> annotations) {
        return annotations.stream().filter(a -> !a.name().equals("rename_from") && !a.name().equals("default")).toList();
    }
}

package dev.omnigraph.engine.query;

import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.Property;
import dev.omnigraph.engine.schema.PropertyType;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A checked mutation query: statements in source order, to run as one atomic commit in which later statements
 * see earlier writes. The D2 rule guarantees it holds either only inserts/updates or only deletes.
 */
public record MutationPlan(String name, List<ParamDecl> params, List<Statement> statements) implements CompiledQuery {
    public MutationPlan {
        params = List.copyOf(params);
        statements = List.copyOf(statements);
    }

    /** Whether this plan deletes (then it has no inserts or updates). */
    public boolean isDelete() {
        return statements.stream().anyMatch(Delete.class::isInstance);
    }

    public sealed interface Statement permits Insert, Update, Delete {
        /** A {@link NodeTable} or an {@link EdgeTable}. */
        CatalogTable table();

        /** The target column of an assignment or predicate, with its type; see {@link MutationPlan#slot}. */
        default Slot slot(String column) {
            return MutationPlan.slot(table(), column);
        }
    }

    /**
     * {@code insert}. Keys of {@code assignments} are physical column names in source order: property names,
     * plus {@code src}/{@code dst} for an edge's {@code from}/{@code to}. A keyed node is written as an upsert.
     */
    public record Insert(CatalogTable table, Map<String, ValueExpr> assignments) implements Statement {
        public Insert {
            assignments = Collections.unmodifiableMap(new LinkedHashMap<>(assignments));
        }

        /**
         * Resolves every assignment for one request (column → Java value).
         *
         * @throws dev.omnigraph.storage.error.BadRequest when a parameter is null for a non-nullable column or does
         *         not fit it
         */
        public Map<String, Object> resolve(BoundParams params, Instant now) {
            return resolveAll(this, assignments, params, now);
        }
    }

    /** {@code update Type set { … } where …}: nodes only, never a {@code @key} property. */
    public record Update(NodeTable table, Map<String, ValueExpr> assignments, Predicate where) implements Statement {
        public Update {
            assignments = Collections.unmodifiableMap(new LinkedHashMap<>(assignments));
        }

        public Map<String, Object> resolve(BoundParams params, Instant now) {
            return resolveAll(this, assignments, params, now);
        }
    }

    /** {@code delete Type where …}; deleting nodes cascades to their incident edges of every edge type. */
    public record Delete(CatalogTable table, Predicate where) implements Statement {}

    /**
     * {@code where property op value}. {@code property} is a physical column: a property name, {@code id}, or
     * for edges {@code src}/{@code dst} (written {@code from}/{@code to}).
     */
    public record Predicate(String property, CompareOp op, ValueExpr value) {
        /** The comparison value for one request, converted to the column's type; null never matches. */
        public Object resolve(CatalogTable table, BoundParams params, Instant now) {
            Slot slot = slot(table, property);
            return value.resolve(slot.type(), params, now);
        }
    }

    /** A writable or comparable column of a table: its physical name, type and nullability. */
    public record Slot(String column, PropertyType type, boolean nullable) {}

    /**
     * The slot of {@code column} in {@code table}: {@code id} (and {@code src}/{@code dst} on edges) are
     * non-null Strings; anything else must be a declared property.
     *
     * @throws IllegalArgumentException for an unknown column
     */
    public static Slot slot(CatalogTable table, String column) {
        if (column.equals("id") || (table instanceof EdgeTable && (column.equals("src") || column.equals("dst"))))
            return new Slot(column, Types.STRING, false);
        List<Property> props = table instanceof NodeTable n ? n.type().properties() : ((EdgeTable) table).type().properties();
        for (Property p : props) {
            if (p.name().equals(column)) return new Slot(column, p.type(), p.nullable());
        }
        throw new IllegalArgumentException("no column '" + column + "' in " + table.tableKey());
    }

    private static Map<String, Object> resolveAll(Statement st, Map<String, ValueExpr> assignments, BoundParams params,
                                                  Instant now) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map.Entry<String, ValueExpr> e : assignments.entrySet()) {
            Slot slot = st.slot(e.getKey());
            out.put(e.getKey(), e.getValue().resolve(slot.type(), slot.nullable(), st.table().typeName(), e.getKey(), params, now));
        }
        return Collections.unmodifiableMap(out);
    }
}

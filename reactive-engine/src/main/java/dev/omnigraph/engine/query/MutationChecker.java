package dev.omnigraph.engine.query;

import dev.omnigraph.engine.query.MutationPlan.Slot;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.Property;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.storage.error.BadRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Type-checks a mutation body into a {@link MutationPlan}; the D2 rule is enforced first, before any type check. */
final class MutationChecker {
    private final CheckContext cx;

    MutationChecker(CheckContext cx) {
        this.cx = cx;
    }

    MutationPlan check(Ast.MutationBody body) {
        boolean constructive = body.statements().stream().anyMatch(s -> !(s instanceof Ast.Delete));
        boolean deletes = body.statements().stream().anyMatch(s -> s instanceof Ast.Delete);
        if (constructive && deletes)
            throw new BadRequest("mutation '" + cx.decl.name() + "' on the same query mixes inserts/updates and deletes;"
                    + " split into separate mutations: (1) inserts and updates, then (2) deletes, run as two requests in"
                    + " that order");
        List<MutationPlan.Statement> out = new ArrayList<>();
        for (Ast.Statement s : body.statements()) {
            if (s instanceof Ast.Insert i) out.add(insert(i));
            else if (s instanceof Ast.Update u) out.add(update(u));
            else out.add(delete((Ast.Delete) s));
        }
        return new MutationPlan(cx.decl.name(), cx.decl.params(), out);
    }

    /** Nodes by exact name first, then edges ignoring case (edges are often written lower-initial). */
    private CatalogTable target(Ast.Statement s) {
        Optional<NodeTable> node = cx.catalog.node(s.typeName());
        if (node.isPresent()) return node.get();
        return cx.edgeIgnoringCase(s.typeName()).orElseThrow(() -> cx.error(s.typePos(), "T10",
                "unknown node or edge type '" + s.typeName() + "'"));
    }

    private MutationPlan.Insert insert(Ast.Insert s) {
        CatalogTable table = target(s);
        Map<String, ValueExpr> assignments = assignments(s, table, s.assignments());
        if (table instanceof EdgeTable e) {
            for (String end : List.of("src", "dst")) {
                if (!assignments.containsKey(end))
                    throw cx.error(s.typePos(), "T12", "insert of edge " + e.typeName() + " must assign '"
                            + (end.equals("src") ? "from" : "to") + "' (the " + (end.equals("src") ? "source" : "destination") + " node id)");
            }
            requireNonNullable(s, e.type().properties(), assignments);
        } else {
            NodeTable n = (NodeTable) table;
            requireNonNullable(s, n.type().properties(), assignments);
            // the id of a keyed node is derived from the whole key tuple, so every key property is required
            for (String k : n.type().key().map(c -> c.properties()).orElse(List.of())) {
                if (!assignments.containsKey(k))
                    throw cx.error(s.typePos(), "T12", "insert of " + s.typeName() + " must assign @key property '" + k + "'");
            }
        }
        return new MutationPlan.Insert(table, assignments);
    }

    /** T12 for the first non-nullable property left unassigned (an @embed vector may be left to its String source). */
    private void requireNonNullable(Ast.Insert s, List<Property> props, Map<String, ValueExpr> assigned) {
        for (Property p : props) {
            if (p.nullable() || assigned.containsKey(p.name())) continue;
            Optional<Property.Embed> embed = p.embed();
            if (embed.isPresent() && assigned.containsKey(embed.get().source())) continue;
            throw cx.error(s.typePos(), "T12", "insert of " + s.typeName() + " must assign non-nullable property '" + p.name()
                    + "' (" + p.typeSpelling() + ")" + embed.map(em -> " or its @embed source '" + em.source() + "'").orElse(""));
        }
    }

    private MutationPlan.Update update(Ast.Update s) {
        Optional<NodeTable> node = cx.catalog.node(s.typeName());
        if (node.isEmpty()) {
            if (cx.edgeIgnoringCase(s.typeName()).isPresent())
                throw cx.error(s.typePos(), "T16", "update of edge type " + s.typeName()
                        + " is not supported; delete the edge and insert it again");
            throw cx.error(s.typePos(), "T10", "unknown node type '" + s.typeName() + "'");
        }
        NodeTable table = node.get();
        List<String> key = table.type().key().map(k -> k.properties()).orElse(List.of());
        for (Ast.Assignment a : s.assignments()) {
            if (key.contains(a.property()))
                throw cx.error(a.pos(), "T11", "cannot update @key property '" + a.property() + "' of " + table.typeName()
                        + "; delete and re-insert instead");
        }
        Map<String, ValueExpr> assignments = assignments(s, table, s.assignments());
        return new MutationPlan.Update(table, assignments, predicate(table, s.where()));
    }

    private MutationPlan.Delete delete(Ast.Delete s) {
        CatalogTable table = target(s);
        return new MutationPlan.Delete(table, predicate(table, s.where()));
    }

    private Map<String, ValueExpr> assignments(Ast.Statement s, CatalogTable table, List<Ast.Assignment> list) {
        String verb = s instanceof Ast.Insert ? "insert" : "update";
        if (list.isEmpty()) throw cx.error(s.pos(), "T10", verb + " of " + table.typeName() + " needs at least one assignment");
        Map<String, ValueExpr> out = new LinkedHashMap<>();
        Map<String, Ast.Pos> seen = new HashMap<>();
        for (Ast.Assignment a : list) {
            Ast.Pos first = seen.putIfAbsent(a.property(), a.pos());
            if (first != null)
                throw cx.error(a.pos(), "T13", "duplicate assignment of '" + a.property() + "' (first at line " + first.line()
                        + ", column " + first.column() + ")");
            String column = column(table, a.property(), a.pos(), false);
            Slot slot = MutationPlan.slot(table, column);
            out.put(column, cx.constant(a.value(), slot.type(), table.typeName() + "." + a.property(), "T14"));
        }
        return out;
    }

    /**
     * The physical column a mutation names: a declared property, or on edges {@code from}/{@code to} (→ src/dst);
     * a predicate may also name {@code id}.
     */
    private String column(CatalogTable table, String name, Ast.Pos at, boolean predicate) {
        boolean edge = table instanceof EdgeTable;
        if (edge && name.equals("from")) return "src";
        if (edge && name.equals("to")) return "dst";
        if (predicate && name.equals("id")) return "id";
        List<Property> props = edge ? ((EdgeTable) table).type().properties() : ((NodeTable) table).type().properties();
        if (props.stream().anyMatch(p -> p.name().equals(name))) return name;
        String hint = "";
        if (name.equals("id")) hint = "; ids are assigned by the engine (derived from the @key, or a new ULID)";
        else if (edge && (name.equals("src") || name.equals("dst"))) hint = "; write the endpoints as 'from' and 'to'";
        throw cx.error(at, "T11", "unknown property '" + name + "' on " + (edge ? "edge " : "node ") + table.typeName() + hint);
    }

    private MutationPlan.Predicate predicate(CatalogTable table, Ast.Where w) {
        String column = column(table, w.property(), w.pos(), true);
        Slot slot = MutationPlan.slot(table, column);
        PropertyType t = slot.type();
        if (Types.isBlob(t))
            throw cx.error(w.pos(), "T11", "Blob property '" + w.property() + "' cannot be used in where");
        if (Types.isCollection(t))
            throw cx.error(w.opPos(), "T7", "cannot compare " + t.spelling() + " property '" + w.property() + "' in where");
        PropertyType compared = w.value() instanceof Ast.Literal lit ? Types.comparisonTarget(lit, t) : t;
        ValueExpr value = cx.constant(w.value(), compared, table.typeName() + "." + w.property(), "T14");
        return new MutationPlan.Predicate(column, w.op(), value);
    }
}

package dev.omnigraph.engine.read;

import dev.omnigraph.engine.query.ReadPlan;
import dev.omnigraph.engine.query.ReadPlan.AggregateOf;
import dev.omnigraph.engine.query.ReadPlan.EntityRef;
import dev.omnigraph.engine.query.ReadPlan.MatchPlan;
import dev.omnigraph.engine.query.ReadPlan.Operand;
import dev.omnigraph.engine.query.ReadPlan.PropertyRef;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.Property;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where each variable of a plan lives in a solution array, and which columns each variable needs. A solution is an
 * {@code Object[]} holding, per slot, the bound entity's row (a column → value map) or null while unbound. Variables
 * of sibling {@code not} blocks may share a name (and so a slot): they are never bound at the same time.
 */
final class Layout {
    private final Map<String, Integer> slots = new LinkedHashMap<>();
    private final Map<String, Set<String>> needed = new HashMap<>();
    private final Set<String> whole = new HashSet<>();

    private Layout() {}

    static Layout of(ReadPlan plan) {
        Layout l = new Layout();
        l.walk(plan.match());
        for (ReadPlan.Projection p : plan.projections()) l.use(p.expr(), true);
        for (ReadPlan.OrderKey k : plan.order()) l.use(k.expr(), false);
        return l;
    }

    private void walk(MatchPlan m) {
        for (ReadPlan.NodeVar n : m.nodes()) {
            declare(n.name());
            for (ReadPlan.PropertyMatch pm : n.matches()) need(n.name(), pm.property().name());
        }
        for (ReadPlan.Traversal t : m.traversals()) {
            declare(t.from());
            declare(t.to());
            if (t.edgeVariable() != null) declare(t.edgeVariable());
        }
        for (ReadPlan.Filter f : m.filters()) {
            use(f.left(), false);
            use(f.right(), false);
        }
        for (ReadPlan.Negation n : m.negations()) walk(n.inner());
    }

    private void declare(String var) {
        slots.putIfAbsent(var, slots.size());
    }

    private void need(String var, String column) {
        needed.computeIfAbsent(var, k -> new HashSet<>()).add(column);
    }

    private void use(Operand op, boolean projected) {
        if (op instanceof PropertyRef r) need(r.variable(), r.property().name());
        else if (op instanceof EntityRef e && projected) whole.add(e.variable());
        else if (op instanceof AggregateOf a && a.arg() instanceof PropertyRef r) need(r.variable(), r.property().name());
    }

    int slot(String var) {
        Integer s = slots.get(var);
        if (s == null) throw new IllegalStateException("variable $" + var + " has no slot");
        return s;
    }

    int size() {
        return slots.size();
    }

    Object[] empty() {
        return new Object[slots.size()];
    }

    /** The physical columns of a table: {@code id} (and {@code src}, {@code dst} on edges), then its properties. */
    static List<String> allColumns(CatalogTable table) {
        List<String> out = new ArrayList<>();
        out.add("id");
        List<Property> props;
        if (table instanceof EdgeTable e) {
            out.add("src");
            out.add("dst");
            props = e.type().properties();
        } else {
            props = ((NodeTable) table).type().properties();
        }
        props.forEach(p -> out.add(p.name()));
        return out;
    }

    /** The columns to read for {@code var} from {@code table}: identity columns plus what the query touches. */
    List<String> columns(String var, CatalogTable table) {
        List<String> all = allColumns(table);
        if (whole.contains(var)) return all;
        Set<String> want = needed.getOrDefault(var, Set.of());
        List<String> out = new ArrayList<>();
        for (String c : all) {
            if (c.equals("id") || c.equals("src") || c.equals("dst") || want.contains(c)) out.add(c);
        }
        return out;
    }
}

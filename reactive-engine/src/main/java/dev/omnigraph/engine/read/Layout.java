package dev.omnigraph.engine.read;

import dev.omnigraph.engine.query.ReadPlan;
import dev.omnigraph.engine.query.ReadPlan.AggregateOf;
import dev.omnigraph.engine.query.ReadPlan.EntityRef;
import dev.omnigraph.engine.query.ReadPlan.MatchPlan;
import dev.omnigraph.engine.query.ReadPlan.Operand;
import dev.omnigraph.engine.query.ReadPlan.PropertyRef;
import dev.omnigraph.engine.query.Rank;
import dev.omnigraph.engine.query.TextFilter;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.Property;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
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
    /** Each ranking's score slot, after the variables' slots; nested rankings before the rrf fusing them. */
    private final Map<Rank, Integer> ranks = new LinkedHashMap<>();

    private Layout() {}

    static Layout of(ReadPlan plan) {
        Layout l = new Layout();
        l.walk(plan.match());
        for (ReadPlan.Projection p : plan.projections()) l.use(p.expr(), true);
        for (ReadPlan.OrderKey k : plan.order()) l.use(k.expr(), false);
        return l;
    }

    private void rank(Rank r) {
        if (ranks.containsKey(r)) return;
        if (r instanceof Rank.Rrf f) {
            rank(f.first());
            rank(f.second());
        } else if (r instanceof Rank.Nearest n) {
            need(n.vector().variable(), n.vector().property().name());
        } else if (r instanceof Rank.Bm25 b) {
            need(b.field().variable(), b.field().property().name());
        }
        String name = "~rank#" + ranks.size(); // '~' cannot start a variable name
        declare(name);
        ranks.put(r, slot(name));
    }

    /** The rankings of the plan, nested ones first. */
    List<Rank> ranks() {
        return List.copyOf(ranks.keySet());
    }

    int rankSlot(Rank r) {
        Integer s = ranks.get(r);
        if (s == null) throw new IllegalStateException("ranking " + r + " has no slot");
        return s;
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
        for (TextFilter t : m.textFilters()) need(t.field().variable(), t.field().property().name());
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
        else if (op instanceof Rank r) rank(r);
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

    /**
     * The columns a query may read from a table: {@code id} (and {@code src}, {@code dst} on edges), then its
     * properties except Blobs (T24: never a read value).
     */
    static List<String> allColumns(CatalogTable table) {
        return columns(table, false);
    }

    /** Every physical column, Blob ones included (export reads their bytes; queries never do). */
    static List<String> storedColumns(CatalogTable table) {
        return columns(table, true);
    }

    private static List<String> columns(CatalogTable table, boolean blobs) {
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
        for (Property p : props) {
            boolean blob = p.type() instanceof PropertyType.Scalar s && s.kind() == ScalarKind.BLOB;
            if (blobs || !blob) out.add(p.name());
        }
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

package dev.omnigraph.engine.read;

import dev.omnigraph.engine.query.ReadPlan;
import dev.omnigraph.engine.query.ReadPlan.AggregateOf;
import dev.omnigraph.engine.query.ReadPlan.EntityRef;
import dev.omnigraph.engine.query.ReadPlan.OrderKey;
import dev.omnigraph.engine.query.ReadPlan.ResultType;
import dev.omnigraph.engine.query.ReadPlan.Traversal;
import dev.omnigraph.engine.query.Rank;
import dev.omnigraph.engine.schema.NodeTable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeSet;

/**
 * Turns solutions into result rows: projection (or implicit-group aggregation), then the total order, then the
 * limit. Order keys compare with NULL first ascending and last descending; remaining ties are broken by the ids of
 * every bound variable of the match block (edge bindings included), taken in variable-name order, ascending. In an
 * aggregate query the grouping columns, which are distinct per row, break the ties instead.
 *
 * <p>A whole node ({@code return { $p }}) is returned as an unmodifiable map: {@code id} first, then every declared
 * property in schema order, NULLs kept, so every row of a column has the same keys.
 */
final class ResultShaper {
    private final ReadPlan plan;
    /** Per projection: its value, or for an aggregate the value of its argument. */
    private final List<Predicates.Eval> evals = new ArrayList<>();
    private final boolean[] unsigned;
    private final List<Predicates.Eval> orderEvals = new ArrayList<>();
    private final int[] tieSlots;
    /** Ties of an order ending in a bm25 ranking go by ids descending, the ranking's own direction. */
    private final boolean idsDescending;

    ResultShaper(ReadPlan plan, Layout layout, Predicates predicates) {
        this.plan = plan;
        this.unsigned = new boolean[plan.projections().size()];
        for (int i = 0; i < plan.projections().size(); i++) {
            ReadPlan.Operand op = plan.projections().get(i).expr();
            unsigned[i] = ValueOrder.unsigned(op.type());
            if (op instanceof AggregateOf a) evals.add(predicates.operand(a.arg(), null).eval());
            else if (op instanceof EntityRef e && e.table() instanceof NodeTable n) evals.add(entity(layout.slot(e.variable()), n));
            else evals.add(predicates.operand(op, null).eval());
        }
        for (OrderKey k : plan.order()) {
            orderEvals.add(k.projection() >= 0 || plan.aggregating() ? null : predicates.operand(k.expr(), null).eval());
        }
        TreeSet<String> names = new TreeSet<>();
        plan.match().nodes().forEach(n -> names.add(n.name()));
        for (Traversal t : plan.match().traversals()) if (t.edgeVariable() != null) names.add(t.edgeVariable());
        this.tieSlots = names.stream().mapToInt(layout::slot).toArray();
        this.idsDescending = !plan.order().isEmpty() && !plan.aggregating()
                && plan.order().get(plan.order().size() - 1).expr() instanceof Rank.Bm25;
    }

    static List<ColumnMeta> columns(ReadPlan plan) {
        return plan.projections().stream().map(p -> new ColumnMeta(p.column(), spell(p.type()))).toList();
    }

    static String spell(ResultType type) {
        if (type instanceof ResultType.Value v) return v.type().spelling() + (v.nullable() ? "?" : "");
        if (type instanceof ResultType.Node n) return n.table().typeName();
        return ((ResultType.Edge) type).table().typeName();
    }

    private static Predicates.Eval entity(int slot, NodeTable table) {
        List<String> columns = Layout.allColumns(table);
        return s -> {
            @SuppressWarnings("unchecked") Map<String, Object> row = (Map<String, Object>) s[slot];
            if (row == null) return null;
            Map<String, Object> out = new LinkedHashMap<>();
            for (String c : columns) out.put(c, row.get(c));
            return Collections.unmodifiableMap(out);
        };
    }

    /** One row of a non-aggregate query. */
    List<Object> project(Object[] solution) {
        List<Object> row = new ArrayList<>(evals.size());
        for (Predicates.Eval e : evals) row.add(e.get(solution));
        return Collections.unmodifiableList(row);
    }

    /**
     * Projects (or aggregates), orders and limits a complete set of solutions. The result-row budget is checked
     * before projecting (for an aggregate, once the groups are known), so an oversized answer is never built.
     */
    List<List<Object>> finish(List<Object[]> solutions, QueryBudget budget) {
        List<List<Object>> rows;
        if (plan.aggregating()) {
            List<List<Object>> groups = new Aggregator(plan, evals).aggregate(solutions);
            checkResultRows(budget, groups.size());
            rows = new ArrayList<>(groups);
            if (!plan.order().isEmpty()) rows.sort(this::compareGroups);
            rows.replaceAll(Collections::unmodifiableList);
        } else if (plan.order().isEmpty()) {
            checkResultRows(budget, solutions.size());
            int n = plan.limit() == null ? solutions.size() : (int) Math.min(solutions.size(), plan.limit());
            rows = new ArrayList<>(n);
            for (Object[] s : solutions.subList(0, n)) rows.add(project(s, budget));
        } else {
            checkResultRows(budget, solutions.size());
            record Keyed(Object[] keys, Object[] solution) {}
            Comparator<Keyed> order = (x, y) -> {
                int c = compareKeys(x.keys(), y.keys());
                return c != 0 ? c : finalTie(x.solution(), y.solution());
            };
            List<Keyed> kept;
            if (plan.limit() != null && plan.limit() < solutions.size()) {
                // Top k: a bounded heap instead of a sort of everything; the order is total (ids break ties), so
                // it keeps exactly the rows a full sort would put first. Only those rows are projected.
                int k = (int) (long) plan.limit();
                PriorityQueue<Keyed> heap = new PriorityQueue<>(k + 1, order.reversed());
                for (Object[] s : solutions) {
                    if (k == 0) break;
                    Keyed c = new Keyed(orderKeys(s), s);
                    if (heap.size() < k) heap.add(c);
                    else if (order.compare(c, heap.peek()) < 0) {
                        heap.poll();
                        heap.add(c);
                    }
                }
                kept = new ArrayList<>(heap);
            } else {
                kept = new ArrayList<>(solutions.size());
                for (Object[] s : solutions) kept.add(new Keyed(orderKeys(s), s));
            }
            kept.sort(order);
            rows = new ArrayList<>(kept.size());
            for (Keyed k : kept) rows.add(project(k.solution(), budget));
        }
        if (plan.limit() != null && rows.size() > plan.limit()) rows = rows.subList(0, (int) (long) plan.limit());
        return rows;
    }

    /** The order keys of a solution: a key naming a projection is that projection's value. */
    private Object[] orderKeys(Object[] s) {
        Object[] keys = new Object[plan.order().size()];
        for (int i = 0; i < keys.length; i++) {
            OrderKey k = plan.order().get(i);
            keys[i] = k.projection() >= 0 ? evals.get(k.projection()).get(s) : orderEvals.get(i).get(s);
        }
        return keys;
    }

    /** A projected row, charged to the budget: the in-memory path holds every one until it is emitted. */
    private List<Object> project(Object[] solution, QueryBudget budget) {
        List<Object> row = project(solution);
        budget.keepBytes(HeapEstimate.projected(row));
        return row;
    }

    /** {@code produced} rows, cut to the limit, must fit the result-row budget. */
    private void checkResultRows(QueryBudget budget, long produced) {
        budget.checkResultRows(plan.limit() == null ? produced : Math.min(produced, plan.limit()));
    }

    private int compareKeys(Object[] a, Object[] b) {
        for (int i = 0; i < a.length; i++) {
            OrderKey k = plan.order().get(i);
            boolean u = ValueOrder.unsigned(k.expr().type());
            int c = ValueOrder.compareNullable(a[i], u, b[i], u); // NULL is least: first ascending, last descending
            if (k.expr() instanceof Rank.Nearest && (a[i] == null) != (b[i] == null))
                return a[i] == null ? 1 : -1; // a row without a vector is farthest of all
            if (c != 0) return k.descending() ? -c : c;
        }
        return 0;
    }

    /**
     * The total order of solutions of a non-aggregate read with an order (keys computed from the solution): what a
     * read that keeps only its top k ranks with. Rank slots must be scored.
     */
    java.util.Comparator<Object[]> solutionOrder() {
        return (x, y) -> {
            int c = compareKeys(keys(x), keys(y));
            return c != 0 ? c : finalTie(x, y);
        };
    }

    private Object[] keys(Object[] s) {
        Object[] keys = new Object[plan.order().size()];
        for (int i = 0; i < keys.length; i++) {
            OrderKey k = plan.order().get(i);
            keys[i] = k.projection() >= 0 ? evals.get(k.projection()).get(s) : orderEvals.get(i).get(s);
        }
        return keys;
    }

    private int finalTie(Object[] a, Object[] b) {
        return idsDescending ? compareIds(b, a) : compareIds(a, b);
    }

    /** The final tie break: bound ids in variable-name order, ascending. */
    int compareIds(Object[] a, Object[] b) {
        for (int slot : tieSlots) {
            int c = ValueOrder.compareNullable(id(a, slot), false, id(b, slot), false);
            if (c != 0) return c;
        }
        return 0;
    }

    private static String id(Object[] solution, int slot) {
        Object row = solution[slot];
        return row == null ? null : (String) ((Map<?, ?>) row).get("id");
    }

    private int compareGroups(List<Object> a, List<Object> b) {
        for (OrderKey k : plan.order()) {
            int i = k.projection();
            int c = ValueOrder.compareNullable(a.get(i), unsigned[i], b.get(i), unsigned[i]);
            if (c != 0) return k.descending() ? -c : c;
        }
        for (int i : plan.groupBy()) {
            int c = ValueOrder.compareNullable(a.get(i), unsigned[i], b.get(i), unsigned[i]);
            if (c != 0) return c;
        }
        return 0;
    }
}

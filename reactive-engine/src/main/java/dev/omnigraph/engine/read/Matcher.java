package dev.omnigraph.engine.read;

import dev.omnigraph.engine.query.ReadPlan;
import dev.omnigraph.engine.query.ReadPlan.MatchPlan;
import dev.omnigraph.engine.query.ReadPlan.NodeVar;
import dev.omnigraph.engine.query.ReadPlan.Traversal;
import dev.omnigraph.engine.query.TextFilter;
import dev.omnigraph.engine.read.Predicates.CompiledFilter;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.SqlLiterals;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Evaluates a match block into solutions. The planner is greedy: it applies every filter as soon as its variables
 * are bound, expands a traversal as soon as one of its endpoints is bound (a traversal between two bound variables
 * is a semi-join), and otherwise scans the most promising unbound variable (one with a pushed-down filter, then the
 * smallest table). An endpoint reached by a traversal is fetched by id, never scanned whole. {@code not} blocks run
 * last, as anti-joins on the ids of the outer variables they mention.
 *
 * <p>Every step builds its output through the query's {@link QueryBudget}: a scan joins each batch into the
 * solutions as it arrives (the scanned table is never collected whole), and a step that passes the row or memory
 * budget throws there and then, which cancels the scan feeding it.
 */
final class Matcher {
    private final TableReader reader;
    private final Layout layout;
    private final Predicates predicates;
    private final Expander expander;
    private final QueryBudget budget;

    /** Unbounded: for compiling scopes (and tests of planning) outside a budgeted run. */
    Matcher(TableReader reader, Layout layout, Predicates predicates) {
        this(reader, layout, predicates, QueryBudget.unbounded());
    }

    Matcher(TableReader reader, Layout layout, Predicates predicates, QueryBudget budget) {
        this.reader = reader;
        this.layout = layout;
        this.predicates = predicates;
        this.budget = budget;
        this.expander = new Expander(reader, budget);
    }

    /** A match block with its filters (binding matches included) compiled and constants resolved. */
    record Scope(List<NodeVar> nodes, List<Traversal> traversals, List<CompiledFilter> filters, List<Negation> negations,
                 Map<String, TextCandidates> texts, Map<String, String> keyIds) {
        /** What an inverted index may pre-select for a scan of {@code var} (see {@link TextCandidates}). */
        java.util.Optional<TextCandidates> text(String var) {
            return java.util.Optional.ofNullable(texts.get(var));
        }

        /** The one id {@code var} can have, when its matches fix every {@code @key} property. */
        java.util.Optional<String> keyId(String var) {
            return java.util.Optional.ofNullable(keyIds.get(var));
        }
    }

    record Negation(Scope inner, int[] outerSlots) {}

    Scope compile(MatchPlan m) {
        List<CompiledFilter> filters = new ArrayList<>();
        Map<String, String> keyIds = new HashMap<>();
        for (NodeVar n : m.nodes()) {
            predicates.keyId(n).ifPresent(id -> {
                keyIds.put(n.name(), id);
                filters.add(predicates.keyLookup(n, id)); // first, so the pushed-down SQL leads with it
            });
            for (ReadPlan.PropertyMatch pm : n.matches()) filters.add(predicates.filter(Predicates.asFilter(n.name(), pm)));
        }
        for (ReadPlan.Filter f : m.filters()) filters.add(predicates.filter(f));
        for (TextFilter t : m.textFilters()) filters.add(predicates.text(t));
        List<Negation> negations = new ArrayList<>();
        for (ReadPlan.Negation n : m.negations())
            negations.add(new Negation(compile(n.inner()), n.outerVariables().stream().mapToInt(layout::slot).toArray()));
        Map<String, TextCandidates> texts = new HashMap<>();
        for (NodeVar n : m.nodes()) {
            if (keyIds.containsKey(n.name())) continue; // one row by key beats any pre-selection
            TextCandidates.of(n.name(), m.textFilters(), predicates).ifPresent(t -> texts.put(n.name(), t));
        }
        return new Scope(m.nodes(), m.traversals(), filters, negations, texts, keyIds);
    }

    /**
     * The pushed-down SQL for {@code var} in {@code scope}: the conjunction of its first {@link #MAX_PUSHED} pushable
     * filters, or null. The rest are only evaluated in Java (every filter is), which keeps the native parser safe.
     */
    static String pushdown(Scope scope, String var) {
        List<String> parts = new ArrayList<>();
        for (CompiledFilter f : scope.filters()) {
            if (f.sql() != null && var.equals(f.singleVar()) && parts.size() < MAX_PUSHED) parts.add(f.sql());
        }
        return parts.isEmpty() ? null : SqlLiterals.allOf(parts);
    }

    /**
     * The rows a scan of {@code v} reads: the one row of a keyed variable taken by row id when its table's key rows
     * are held ({@link TableReader#rowsByKey}), else the scan of its pushed-down filters (or what an inverted index
     * pre-selects). Either way a superset of its matches: every filter is evaluated on them afterwards.
     */
    static Flux<List<Map<String, Object>>> variableRows(TableReader reader, Scope scope, NodeVar v, List<String> columns,
                                                         int batchSize) {
        Mono<java.util.Optional<List<Map<String, Object>>>> taken = scope.keyId(v.name())
                .map(id -> reader.rowsByKey(v.table(), Set.of(id), columns))
                .orElse(Mono.just(java.util.Optional.empty()));
        return taken.flatMapMany(rows -> rows.isPresent() ? Flux.just(rows.get())
                : reader.batches(v.table(), pushdown(scope, v.name()), columns, batchSize, scope.text(v.name())));
    }

    /** Conditions per variable handed to Lance; a bound on the filter text, not on the query. */
    static final int MAX_PUSHED = 32;

    /** Mutable progress of one scope; confined to one sequential chain of operators. */
    private static final class State {
        List<Object[]> rows;
        final Set<String> bound;
        final boolean[] applied;
        final List<Traversal> pending;

        State(List<Object[]> rows, Set<String> bound, Scope scope) {
            this.rows = rows;
            this.bound = new HashSet<>(bound);
            this.applied = new boolean[scope.filters().size()];
            this.pending = new ArrayList<>(scope.traversals());
        }
    }

    /** Extends each input solution (whose {@code bound} variables are set) by every match of {@code scope}. */
    Mono<List<Object[]>> run(Scope scope, List<Object[]> input, Set<String> bound) {
        State start = new State(input, bound, scope);
        return Mono.defer(() -> step(scope, start))
                .flatMap(done -> negate(scope.negations(), 0, done.rows, done.bound));
    }

    private Mono<State> step(Scope scope, State st) {
        applyReady(scope, st);
        if (st.rows.isEmpty()) return Mono.just(st); // nothing can match any more
        Traversal t = nextTraversal(st);
        if (t != null) {
            st.pending.remove(t);
            return expand(scope, t, st).flatMap(next -> step(scope, next));
        }
        NodeVar v = nextScan(scope, st);
        if (v != null) {
            int slot = layout.slot(v.name());
            QueryBudget.Step out = budget.step();
            return variableRows(reader, scope, v, layout.columns(v.name(), v.table()), ScanRequest.DEFAULT_BATCH_SIZE)
                    .publishOn(reactor.core.scheduler.Schedulers.parallel(), 2)
                    .doOnNext(rows -> {
                        budget.keep(rows);
                        for (Object[] s : st.rows) {
                            for (Map<String, Object> row : rows) out.add(with(s, slot, row));
                        }
                    })
                    .then(Mono.defer(() -> {
                        replace(st, out);
                        st.bound.add(v.name());
                        return step(scope, st);
                    }));
        }
        return Mono.just(st);
    }

    private static Object[] with(Object[] solution, int slot, Object row) {
        Object[] copy = solution.clone();
        copy[slot] = row;
        return copy;
    }

    /** The step's output becomes the working set; the solutions it replaces are released. */
    private void replace(State st, QueryBudget.Step out) {
        budget.release(st.rows.size());
        st.rows = out.rows;
    }

    private void applyReady(Scope scope, State st) {
        for (int i = 0; i < st.applied.length; i++) {
            CompiledFilter f = scope.filters().get(i);
            if (st.applied[i] || !st.bound.containsAll(f.vars())) continue;
            st.applied[i] = true;
            List<Object[]> kept = new ArrayList<>();
            for (Object[] s : st.rows) if (f.test().test(s)) kept.add(s);
            budget.release(st.rows.size() - kept.size());
            st.rows = kept;
        }
    }

    /** A traversal between two bound variables first (it only filters), then one with a bound endpoint. */
    private static Traversal nextTraversal(State st) {
        for (Traversal t : st.pending) if (st.bound.contains(t.from()) && st.bound.contains(t.to())) return t;
        for (Traversal t : st.pending) if (st.bound.contains(t.from()) || st.bound.contains(t.to())) return t;
        return null;
    }

    private NodeVar nextScan(Scope scope, State st) {
        return scope.nodes().stream().filter(n -> !st.bound.contains(n.name()))
                .min(Comparator.comparingInt((NodeVar n) -> pushdown(scope, n.name()) != null ? 0 : 1)
                        .thenComparingLong(n -> reader.rowCount(n.table())))
                .orElse(null);
    }

    private static String id(Object[] solution, int slot) {
        @SuppressWarnings("unchecked") Map<String, Object> row = (Map<String, Object>) solution[slot];
        return (String) row.get("id");
    }

    private Mono<State> expand(Scope scope, Traversal t, State st) {
        boolean forward = st.bound.contains(t.from());
        String a = forward ? t.from() : t.to();
        String b = forward ? t.to() : t.from();
        int aSlot = layout.slot(a);
        int bSlot = layout.slot(b);
        boolean bBound = st.bound.contains(b);
        Expander.Probe probe = t.direction() == ReadPlan.Direction.BOTH ? Expander.Probe.BOTH
                : forward ? Expander.Probe.OUT : Expander.Probe.IN;
        Set<String> starts = new LinkedHashSet<>();
        for (Object[] s : st.rows) starts.add(id(s, aSlot));
        EdgeTable edge = t.edge();
        NodeVar bVar = bBound ? null : scope.nodes().stream().filter(n -> n.name().equals(b)).findFirst()
                .orElseThrow(() -> new IllegalStateException("unbound endpoint $" + b + " is not declared in its block"));

        if (t.edgeVariable() != null) {
            String e = t.edgeVariable();
            int eSlot = layout.slot(e);
            return expander.edges(edge, probe, starts, pushdown(scope, e), layout.columns(e, edge)).flatMap(hits -> {
                Set<String> ends = new LinkedHashSet<>();
                hits.values().forEach(list -> list.forEach(h -> ends.add(h.opposite())));
                return nodes(scope, bVar, ends).map(found -> {
                    QueryBudget.Step out = budget.step();
                    for (Object[] s : st.rows) {
                        for (Expander.Hit h : hits.getOrDefault(id(s, aSlot), List.of())) {
                            if (bBound) {
                                if (h.opposite().equals(id(s, bSlot))) out.add(with(s, eSlot, h.edge()));
                            } else {
                                Map<String, Object> row = found.get(h.opposite());
                                if (row != null) out.add(with(with(s, eSlot, h.edge()), bSlot, row));
                            }
                        }
                    }
                    replace(st, out);
                    st.bound.add(e);
                    st.bound.add(b);
                    return st;
                });
            });
        }

        boolean sameType = edge.type().fromType().equals(edge.type().toType());
        int max = sameType ? t.maxHops() : Math.min(t.maxHops(), 1); // a cross-type edge cannot chain
        return expander.reach(edge, probe, starts, t.minHops(), max, sameType).flatMap(reached -> {
            Set<String> ends = new LinkedHashSet<>();
            reached.values().forEach(ends::addAll);
            return nodes(scope, bVar, ends).map(found -> {
                QueryBudget.Step out = budget.step();
                for (Object[] s : st.rows) {
                    Set<String> targets = reached.getOrDefault(id(s, aSlot), Set.of());
                    if (bBound) {
                        if (targets.contains(id(s, bSlot))) out.add(s);
                        continue;
                    }
                    for (String target : targets) {
                        Map<String, Object> row = found.get(target);
                        if (row != null) out.add(with(s, bSlot, row));
                    }
                }
                replace(st, out);
                st.bound.add(b);
                return st;
            });
        });
    }

    /** The rows of {@code var} among {@code ids} that pass its pushed-down filters; empty when var is null. */
    private Mono<Map<String, Map<String, Object>>> nodes(Scope scope, NodeVar var, Set<String> ids) {
        Map<String, Map<String, Object>> found = new HashMap<>();
        if (var == null) return Mono.just(found);
        NodeTable table = var.table();
        String extra = pushdown(scope, var.name());
        List<String> columns = layout.columns(var.name(), table);
        // Taken rows skip the pushed-down filters; every filter is evaluated once the variable is bound anyway.
        return reader.rowsByKey(table, ids, columns).flatMap(taken -> {
            if (taken.isPresent()) {
                budget.keep(taken.get());
                for (Map<String, Object> row : taken.get()) found.put((String) row.get("id"), row);
                return Mono.just(found);
            }
            return reader.scanByKeys(table, ids, batch -> extra == null ? SqlLiterals.inList("id", batch)
                            : SqlLiterals.allOf(List.of(SqlLiterals.inList("id", batch), extra)),
                    columns, (batch, rows) -> {
                        for (Map<String, Object> row : rows) found.put((String) row.get("id"), row);
                    }).thenReturn(found);
        });
    }

    /** Anti-joins: drop each solution for which a {@code not} block has a match. */
    private Mono<List<Object[]>> negate(List<Negation> negations, int i, List<Object[]> rows, Set<String> bound) {
        if (i == negations.size() || rows.isEmpty()) return Mono.just(rows);
        Negation n = negations.get(i);
        Map<List<String>, Object[]> representatives = new LinkedHashMap<>();
        for (Object[] s : rows) representatives.putIfAbsent(key(s, n.outerSlots()), s);
        budget.hold(representatives.size()); // the inner block's input, released as it is replaced
        return run(n.inner(), new ArrayList<>(representatives.values()), bound).flatMap(matched -> {
            Set<List<String>> hit = new HashSet<>();
            for (Object[] s : matched) hit.add(key(s, n.outerSlots()));
            budget.release(matched.size());
            List<Object[]> kept = new ArrayList<>();
            for (Object[] s : rows) if (!hit.contains(key(s, n.outerSlots()))) kept.add(s);
            budget.release(rows.size() - kept.size());
            return negate(negations, i + 1, kept, bound);
        });
    }

    private static List<String> key(Object[] solution, int[] slots) {
        List<String> k = new ArrayList<>(slots.length);
        for (int slot : slots) k.add(id(solution, slot));
        return k;
    }
}

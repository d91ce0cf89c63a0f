package dev.omnigraph.engine.read;

import dev.omnigraph.engine.query.AggFn;
import dev.omnigraph.engine.query.ReadPlan;
import dev.omnigraph.engine.query.ReadPlan.AggregateOf;
import dev.omnigraph.engine.query.ReadPlan.EntityRef;
import dev.omnigraph.engine.query.ReadPlan.MatchPlan;
import dev.omnigraph.engine.query.ReadPlan.NodeVar;
import dev.omnigraph.engine.read.Predicates.CompiledFilter;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.TableStorage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import reactor.core.publisher.Flux;

/**
 * {@code count($v)} of a block of one node variable whose every filter Lance evaluates exactly (each has pushed-down
 * SQL, see {@link SqlPushdown}): one Lance count of the pinned version with that filter, no rows read into Java.
 * Such a count is the number of solutions the in-memory path would count (a bound variable always counts), and a
 * query without grouping yields its one row even when nothing matched, so the answer is the same.
 */
final class CountRead {
    private final NodeVar var;
    private final String where;
    private final int columns;

    private CountRead(NodeVar var, String where, int columns) {
        this.var = var;
        this.where = where;
        this.columns = columns;
    }

    static Optional<CountRead> of(ReadPlan plan, Matcher.Scope scope) {
        MatchPlan m = plan.match();
        if (!plan.aggregating() || !plan.groupBy().isEmpty() || m.nodes().size() != 1 || !m.traversals().isEmpty()
                || !m.negations().isEmpty() || !m.textFilters().isEmpty() || (plan.limit() != null && plan.limit() < 1))
            return Optional.empty();
        NodeVar v = m.nodes().get(0);
        for (ReadPlan.Projection p : plan.projections()) {
            if (!(p.expr() instanceof AggregateOf a) || a.fn() != AggFn.COUNT
                    || !(a.arg() instanceof EntityRef e) || !e.variable().equals(v.name()))
                return Optional.empty();
        }
        List<CompiledFilter> filters = scope.filters();
        if (filters.size() > Matcher.MAX_PUSHED) return Optional.empty();
        for (CompiledFilter f : filters)
            if (f.sql() == null || !v.name().equals(f.singleVar())) return Optional.empty();
        return Optional.of(new CountRead(v, Matcher.pushdown(scope, v.name()), plan.projections().size()));
    }

    /** The one result row: the count in every column. */
    Flux<List<Object>> rows(TableStorage tables, TableReader reader, Failpoints failpoints, QueryBudget budget) {
        return failpoints.hit(QueryExecutor.SCAN_FAILPOINT)
                .then(reactor.core.publisher.Mono.defer(() -> tables.count(reader.snapshot(var.table()), Optional.ofNullable(where))))
                .map(n -> {
                    budget.checkResultRows(1);
                    List<Object> row = new ArrayList<>(columns);
                    for (int i = 0; i < columns; i++) row.add(n);
                    return Collections.unmodifiableList(row);
                })
                .flux();
    }
}

package dev.omnigraph.engine.read;

import dev.omnigraph.engine.query.AggFn;
import dev.omnigraph.engine.query.ReadPlan;
import dev.omnigraph.engine.query.ReadPlan.AggregateOf;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.storage.error.BadRequest;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Implicit grouping: one output row per distinct tuple of the non-aggregate projections (a whole node groups by
 * its id), in first-seen order. Aggregates skip NULL inputs: {@code count} counts non-null values (a bound variable
 * always counts), {@code sum} of nothing is 0 (its declared type is non-null), {@code avg}, {@code min} and
 * {@code max} of nothing are NULL. Integer sums are exact and fail with a BadRequest when they leave I64. A query
 * without grouping columns yields one row even when nothing matched.
 */
final class Aggregator {
    private final ReadPlan plan;
    private final List<Predicates.Eval> evals;

    /** {@code evals}: per projection, the value of the projection or, for an aggregate, of its argument. */
    Aggregator(ReadPlan plan, List<Predicates.Eval> evals) {
        this.plan = plan;
        this.evals = evals;
    }

    List<List<Object>> aggregate(List<Object[]> solutions) {
        Map<List<Object>, Group> groups = new LinkedHashMap<>();
        for (Object[] s : solutions) {
            Object[] keyValues = new Object[plan.groupBy().size()];
            Object[] key = new Object[keyValues.length];
            for (int g = 0; g < key.length; g++) {
                Object v = evals.get(plan.groupBy().get(g)).get(s);
                keyValues[g] = v;
                key[g] = v instanceof Map<?, ?> entity ? "entity:" + entity.get("id") : v;
            }
            Group group = groups.computeIfAbsent(Arrays.asList(key), k -> new Group(keyValues));
            for (int i = 0; i < group.accs.length; i++) {
                if (group.accs[i] != null) group.accs[i].add(evals.get(i).get(s));
            }
        }
        if (groups.isEmpty() && plan.groupBy().isEmpty()) groups.put(List.of(), new Group(new Object[0]));
        List<List<Object>> out = new ArrayList<>(groups.size());
        for (Group g : groups.values()) {
            List<Object> row = new ArrayList<>(plan.projections().size());
            int k = 0;
            for (int i = 0; i < plan.projections().size(); i++)
                row.add(g.accs[i] != null ? g.accs[i].result() : g.keyValues[k++]);
            out.add(row);
        }
        return out;
    }

    private final class Group {
        final Object[] keyValues;
        final Acc[] accs;

        Group(Object[] keyValues) {
            this.keyValues = keyValues;
            this.accs = new Acc[plan.projections().size()];
            for (int i = 0; i < accs.length; i++) {
                if (plan.projections().get(i).expr() instanceof AggregateOf a) accs[i] = new Acc(a);
            }
        }
    }

    /** One aggregate's running state. */
    private static final class Acc {
        final AggFn fn;
        final boolean unsigned;
        final boolean integer;
        final String what;
        long count;
        BigInteger intSum = BigInteger.ZERO;
        double floatSum;
        Object best;

        Acc(AggregateOf a) {
            this.fn = a.fn();
            PropertyType argType = a.arg().type() instanceof ReadPlan.ResultType.Value v ? v.type() : null;
            this.unsigned = argType != null && ValueOrder.unsigned(argType);
            this.integer = argType instanceof PropertyType.Scalar s && s.kind().isInteger();
            this.what = fn.keyword();
        }

        void add(Object v) {
            if (v == null) return;
            count++;
            switch (fn) {
                case COUNT -> { }
                case SUM, AVG -> {
                    if (integer) intSum = intSum.add(ValueOrder.integer((Number) v, unsigned));
                    else floatSum += ((Number) v).doubleValue();
                }
                case MIN -> {
                    if (best == null || ValueOrder.compare(v, unsigned, best, unsigned) < 0) best = v;
                }
                case MAX -> {
                    if (best == null || ValueOrder.compare(v, unsigned, best, unsigned) > 0) best = v;
                }
            }
        }

        Object result() {
            return switch (fn) {
                case COUNT -> count;
                case SUM -> {
                    if (!integer) yield floatSum;
                    if (intSum.bitLength() > 63) throw new BadRequest(what + "(…) overflows I64: " + intSum);
                    yield intSum.longValue();
                }
                case AVG -> {
                    if (count == 0) yield null;
                    yield integer ? new BigDecimal(intSum).divide(BigDecimal.valueOf(count), MathContext.DECIMAL64).doubleValue()
                            : floatSum / count;
                }
                case MIN, MAX -> best;
            };
        }
    }
}

package dev.omnigraph.engine.read;

import dev.omnigraph.engine.query.BoundParams;
import dev.omnigraph.engine.query.CompareOp;
import dev.omnigraph.engine.query.ReadPlan.Constant;
import dev.omnigraph.engine.query.ReadPlan.EntityRef;
import dev.omnigraph.engine.query.ReadPlan.Filter;
import dev.omnigraph.engine.query.ReadPlan.Operand;
import dev.omnigraph.engine.query.ReadPlan.PropertyMatch;
import dev.omnigraph.engine.query.ReadPlan.PropertyRef;
import dev.omnigraph.engine.query.ReadPlan;
import dev.omnigraph.engine.query.Rank;
import dev.omnigraph.engine.query.TextFilter;
import dev.omnigraph.engine.read.search.TextFilters;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Compiles filters and binding matches into Java predicates over a solution (one row map per variable slot), and,
 * where a filter concerns one variable and a constant, into a Lance SQL fragment for the scan. The SQL is only a
 * pre-filter: every filter is evaluated in Java as well, so a fragment may admit more rows than the predicate, never
 * fewer. Constants (parameters, {@code now()}) are resolved once, here.
 */
final class Predicates {
    private final Layout layout;
    private final BoundParams params;
    private final Instant now;

    Predicates(Layout layout, BoundParams params, Instant now) {
        this.layout = layout;
        this.params = params;
        this.now = now;
    }

    /** Reads one value out of a solution. */
    @FunctionalInterface
    interface Eval {
        Object get(Object[] solution);
    }

    /** A compiled operand; {@code ref} is set for a property access, {@code constant} marks a constant. */
    record Compiled(Eval eval, boolean unsigned, Set<String> vars, PropertyRef ref, boolean constant, Object value) {}

    /** A compiled filter; {@code sql} is non-null only when it can pre-filter the scan of its single variable. */
    record CompiledFilter(Set<String> vars, Predicate<Object[]> test, String sql) {
        String singleVar() {
            return vars.size() == 1 ? vars.iterator().next() : null;
        }
    }

    Compiled operand(Operand op, Operand other) {
        if (op instanceof PropertyRef ref) {
            int slot = layout.slot(ref.variable());
            String column = ref.property().name();
            return new Compiled(s -> {
                @SuppressWarnings("unchecked") Map<String, Object> row = (Map<String, Object>) s[slot];
                return row == null ? null : row.get(column);
            }, ValueOrder.unsigned(ref.property().type()), Set.of(ref.variable()), ref, false, null);
        }
        if (op instanceof EntityRef ref) {
            int slot = layout.slot(ref.variable());
            return new Compiled(s -> s[slot], false, Set.of(ref.variable()), null, false, null);
        }
        if (op instanceof Constant c) {
            Object value = c.value().resolve(c.valueType(), params, now);
            // A float constant meets an F32 property in the F32 domain (0.1 matches a stored 0.1f), as Lance does.
            if (value instanceof Double d && other instanceof PropertyRef r && isF32(r.property().type()))
                value = (float) (double) d;
            Object fixed = value;
            return new Compiled(s -> fixed, ValueOrder.unsigned(c.valueType()), Set.of(), null, true, fixed);
        }
        if (op instanceof Rank r) { // scored by the Ranker before projection and ordering
            int slot = layout.rankSlot(r);
            return new Compiled(s -> s[slot], false, Set.of(), null, false, null);
        }
        throw new IllegalArgumentException("not a row operand: " + op);
    }

    private static boolean isF32(PropertyType t) {
        return t instanceof PropertyType.Scalar s && s.kind() == ScalarKind.F32
                || t instanceof PropertyType.ListOf l && l.element() == ScalarKind.F32;
    }

    /** A binding's {@code prop: value} as the filter it stands for. */
    static Filter asFilter(String variable, PropertyMatch m) {
        PropertyType target = m.membership()
                ? new PropertyType.Scalar(((PropertyType.ListOf) m.property().type()).element()) : m.property().type();
        return new Filter(new PropertyRef(variable, m.property(), false), m.membership() ? CompareOp.CONTAINS : CompareOp.EQ,
                new Constant(m.value(), target, true));
    }

    /**
     * A keyed node bound by equality on every one of its {@code @key} properties has exactly one possible id: the
     * id derived from those values. That {@code id = '…'} filter is implied by the matches (ids are always derived
     * from keys), so adding it changes no answer, and it lets Lance answer the scan from the BTREE on {@code id}.
     */
    CompiledFilter keyLookup(ReadPlan.NodeVar n, String id) {
        int slot = layout.slot(n.name());
        Predicate<Object[]> test = s -> s[slot] instanceof Map<?, ?> row && id.equals(row.get("id"));
        return new CompiledFilter(Set.of(n.name()), test,
                dev.omnigraph.storage.SqlLiterals.pushable(id) ? dev.omnigraph.storage.SqlLiterals.eq("id", id) : null);
    }

    /** The one id a keyed node bound by equality on every {@code @key} property can have ({@link #keyLookup}). */
    java.util.Optional<String> keyId(ReadPlan.NodeVar n) {
        List<String> keys = n.table().type().key().map(k -> k.properties()).orElse(List.of());
        if (keys.isEmpty()) return java.util.Optional.empty();
        Map<String, Object> values = new java.util.HashMap<>();
        for (PropertyMatch m : n.matches()) {
            if (m.membership() || !keys.contains(m.property().name())) continue;
            Filter f = asFilter(n.name(), m);
            Object value = operand(f.right(), f.left()).value();
            if (value == null) return java.util.Optional.empty(); // NULL matches nothing; the match says so
            values.put(m.property().name(), value);
        }
        if (!values.keySet().containsAll(keys)) return java.util.Optional.empty();
        try {
            return java.util.Optional.of(n.table().deriveId(values));
        } catch (RuntimeException notAKey) { // e.g. an enum value outside the enum: the match itself finds nothing
            return java.util.Optional.empty();
        }
    }

    CompiledFilter filter(Filter f) {
        Compiled l = operand(f.left(), f.right());
        Compiled r = operand(f.right(), f.left());
        Set<String> vars = new java.util.TreeSet<>(l.vars());
        vars.addAll(r.vars());
        CompareOp op = f.op();
        Predicate<Object[]> test = s -> {
            Object a = l.eval().get(s);
            if (a == null) return false;
            Object b = r.eval().get(s);
            if (b == null) return false; // NULL never matches, not even !=
            return holds(op, a, l.unsigned(), b, r.unsigned());
        };
        return new CompiledFilter(Set.copyOf(vars), test, vars.size() == 1 ? SqlPushdown.sql(op, l, r) : null);
    }

    /** A text clause: exact, evaluated in Java on its variable's row (never pushed into the scan). */
    CompiledFilter text(TextFilter f) {
        Object query = operand(f.query(), null).value();
        Long distance = f.distance() == null ? null : ((Number) operand(f.distance(), null).value()).longValue();
        String var = f.field().variable();
        return new CompiledFilter(Set.of(var), TextFilters.compile(f.op(), layout.slot(var), f.field().property().name(),
                (String) query, distance), null);
    }

    static boolean holds(CompareOp op, Object a, boolean au, Object b, boolean bu) {
        return switch (op) {
            case EQ -> ValueOrder.equal(a, au, b, bu);
            case NE -> !ValueOrder.equal(a, au, b, bu);
            case LT -> ValueOrder.compare(a, au, b, bu) < 0;
            case LE -> ValueOrder.compare(a, au, b, bu) <= 0;
            case GT -> ValueOrder.compare(a, au, b, bu) > 0;
            case GE -> ValueOrder.compare(a, au, b, bu) >= 0;
            case STARTS_WITH -> ((String) a).startsWith((String) b);
            case CONTAINS -> {
                if (a instanceof List<?> items) {
                    for (Object item : items) if (item != null && ValueOrder.equal(item, au, b, bu)) yield true;
                    yield false;
                }
                yield ((String) a).contains((String) b);
            }
        };
    }
}

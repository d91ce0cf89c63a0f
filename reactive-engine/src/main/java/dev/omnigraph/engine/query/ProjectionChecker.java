package dev.omnigraph.engine.query;

import dev.omnigraph.engine.query.ReadPlan.AggregateOf;
import dev.omnigraph.engine.query.ReadPlan.EntityRef;
import dev.omnigraph.engine.query.ReadPlan.Operand;
import dev.omnigraph.engine.query.ReadPlan.PropertyRef;
import dev.omnigraph.engine.query.ReadPlan.ResultType;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks {@code return}, {@code order} and {@code limit} against the match scope: result types, output column
 * names, aggregate rules (T8, T9: implicit grouping by the non-aggregate projections) and order keys.
 */
final class ProjectionChecker {
    private final ReadChecker reads;
    private final CheckContext cx;
    private final ReadChecker.Scope scope;

    ProjectionChecker(ReadChecker reads, ReadChecker.Scope scope) {
        this.reads = reads;
        this.cx = reads.cx;
        this.scope = scope;
    }

    ReadPlan check(Ast.ReadBody body, ReadPlan.MatchPlan match) {
        List<ReadPlan.Projection> projections = new ArrayList<>();
        Set<String> columns = new HashSet<>();
        boolean aggregating = body.projections().stream().anyMatch(p -> p.expr() instanceof Ast.Aggregate);
        List<Integer> groupBy = new ArrayList<>();
        for (Ast.Projection p : body.projections()) {
            Operand op = value(p.expr(), true);
            if (op instanceof EntityRef e && e.table() instanceof EdgeTable)
                throw cx.error(p.pos(), "T23", "edge binding $" + e.variable() + " cannot be returned bare; return its properties ($"
                        + e.variable() + ".prop)");
            if (aggregating && op instanceof Rank)
                throw cx.error(p.pos(), "T9", "rankings (nearest, bm25, rrf) cannot be used in a query with aggregates");
            if (aggregating && !(op instanceof AggregateOf)) {
                if (!(op instanceof PropertyRef) && !(op instanceof EntityRef))
                    throw cx.error(p.pos(), "T9", "in a query with aggregates, every other projection must be a property access or a"
                            + " variable (they are the grouping keys)");
                groupBy.add(projections.size());
            }
            String column = p.alias() != null ? p.alias() : columnName(p.expr());
            if (!columns.add(column))
                throw cx.error(p.pos(), "T9", "result column '" + column + "' is produced twice; give each projection its own alias");
            projections.add(new ReadPlan.Projection(column, op));
        }

        List<ReadPlan.OrderKey> order = new ArrayList<>();
        for (Ast.Ordering o : body.order()) {
            Operand op;
            int index;
            if (o.expr() instanceof Ast.AliasRef a) {
                index = -1;
                for (int i = 0; i < body.projections().size(); i++) {
                    if (a.name().equals(body.projections().get(i).alias())) index = i;
                }
                if (index < 0)
                    throw cx.error(a.pos(), "T6", "unknown alias '" + a.name() + "' in order" + aliasHint(body));
                op = projections.get(index).expr();
            } else {
                op = value(o.expr(), false);
                index = projections.stream().map(ReadPlan.Projection::expr).toList().indexOf(op);
                if (op instanceof AggregateOf && index < 0)
                    throw cx.error(o.pos(), "T9", "an aggregate used in order must also be returned");
                if (aggregating && index < 0)
                    throw cx.error(o.pos(), "T9", "in a query with aggregates, order keys must be returned columns or their aliases");
            }
            if (op instanceof EntityRef e)
                throw cx.error(o.pos(), "T7", "cannot order by the whole " + (e.table() instanceof EdgeTable ? "edge" : "node")
                        + " $" + e.variable() + "; order by one of its properties");
            if (op.type() instanceof ResultType.Value v && Types.isCollection(v.type()))
                throw cx.error(o.pos(), "T7", "cannot order by a " + v.type().spelling() + " value");
            order.add(new ReadPlan.OrderKey(op, o.descending(), index));
        }
        rankRules(body, order);
        return new ReadPlan(cx.decl.name(), cx.decl.params(), match, projections, aggregating,
                aggregating ? groupBy : List.of(), order, body.limit());
    }

    /** T17/T18/T21: nearest and rrf orderings need a limit; nearest is not mixed with alias keys. */
    private void rankRules(Ast.ReadBody body, List<ReadPlan.OrderKey> order) {
        List<Operand> keys = order.stream().map(ReadPlan.OrderKey::expr).toList();
        for (Ast.Ordering o : body.order()) {
            if (!(o.expr() instanceof Ast.SearchCall c)) continue;
            if (body.limit() == null && c.function().equals("nearest"))
                throw cx.error(o.pos(), "T17", "ordering by nearest(…) needs a limit (write limit n after order)");
            if (body.limit() == null && c.function().equals("rrf"))
                throw cx.error(o.pos(), "T21", "ordering by rrf(…) needs a limit (write limit n after order)");
        }
        if (SearchChecker.uses(keys, Rank.Nearest.class)) {
            for (Ast.Ordering o : body.order()) {
                if (o.expr() instanceof Ast.AliasRef a)
                    throw cx.error(a.pos(), "T18", "ordering by alias '" + a.name() + "' cannot be combined with nearest(…)");
            }
        }
    }

    private static String aliasHint(Ast.ReadBody body) {
        List<String> aliases = body.projections().stream().map(Ast.Projection::alias).filter(a -> a != null).toList();
        return aliases.isEmpty() ? " (no projection has an alias)" : " (aliases: " + String.join(", ", aliases) + ")";
    }

    /** A projection or order operand: a literal takes its natural type; aggregates are resolved here. */
    private Operand value(Ast.Expr e, boolean inReturn) {
        if (e instanceof Ast.Literal lit) return reads.natural(lit);
        if (e instanceof Ast.Aggregate a) return aggregate(a);
        if (e instanceof Ast.SearchCall c) return reads.searches.rank(scope, c);
        Operand op = reads.operand(scope, e, inReturn);
        refuseBlob(op, e.pos());
        return op;
    }

    /** T24: a Blob is never a read value (projected, ordered, aggregated); read its bytes through the blob API. */
    private void refuseBlob(Operand op, Ast.Pos at) {
        if (op instanceof PropertyRef ref && Types.isBlob(ref.property().type()))
            throw cx.error(at, "T24", "Blob property " + ref.variable() + "." + ref.property().name()
                    + " cannot be used as a read value; read its bytes with blob get");
    }

    private Operand aggregate(Ast.Aggregate a) {
        Operand arg;
        if (a.arg() instanceof Ast.PropAccess pa) {
            arg = reads.propertyRef(scope, pa);
            refuseBlob(arg, pa.pos());
        } else if (a.arg() instanceof Ast.Var v && !v.name().equals("_") && scope.lookup(v.name()) != null) {
            arg = reads.operand(scope, v, true);
            if (((EntityRef) arg).table() instanceof EdgeTable)
                throw cx.error(v.pos(), "T23", "edge binding $" + v.name() + " cannot be aggregated bare; aggregate one of its properties");
            if (a.fn() != AggFn.COUNT)
                throw cx.error(a.pos(), "T8", a.fn().keyword() + " needs a property, not the whole node $" + v.name());
        } else {
            throw cx.error(a.arg().pos(), "T8", a.fn().keyword() + "(…) takes a property ($var.prop)"
                    + (a.fn() == AggFn.COUNT ? " or a match variable" : ""));
        }
        if (a.fn() == AggFn.COUNT)
            return new AggregateOf(AggFn.COUNT, arg, new ResultType.Value(Types.I64, false));
        PropertyType t = ((ResultType.Value) arg.type()).type();
        ScalarKind k = Types.scalarKind(t);
        String got = a.fn().keyword() + " over " + t.spelling();
        return switch (a.fn()) {
            case SUM -> {
                if (!Types.isNumeric(t)) throw cx.error(a.pos(), "T8", got + ": sum needs a numeric property");
                yield new AggregateOf(AggFn.SUM, arg, new ResultType.Value(k.isInteger() ? Types.I64 : Types.F64, false));
            }
            case AVG -> {
                if (!Types.isNumeric(t)) throw cx.error(a.pos(), "T8", got + ": avg needs a numeric property");
                yield new AggregateOf(AggFn.AVG, arg, new ResultType.Value(Types.F64, true));
            }
            default -> {
                boolean ordered = Types.isNumeric(t) || Types.isStringLike(t) || k == ScalarKind.DATE || k == ScalarKind.DATETIME;
                if (!ordered)
                    throw cx.error(a.pos(), "T8", got + ": " + a.fn().keyword() + " needs a numeric, String, Date or DateTime property");
                yield new AggregateOf(a.fn(), arg, new ResultType.Value(t, true));
            }
        };
    }

    /** The output name of an unaliased projection. */
    private static String columnName(Ast.Expr e) {
        if (e instanceof Ast.PropAccess pa) return pa.variable() + "." + pa.property();
        if (e instanceof Ast.Var v) return v.name();
        if (e instanceof Ast.Now) return "now";
        if (e instanceof Ast.Aggregate a) return a.fn().keyword() + "(" + columnName(a.arg()) + ")";
        if (e instanceof Ast.AliasRef a) return a.name();
        if (e instanceof Ast.SearchCall c) return c.function();
        return "literal";
    }

}

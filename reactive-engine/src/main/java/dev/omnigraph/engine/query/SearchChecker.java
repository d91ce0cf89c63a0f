package dev.omnigraph.engine.query;

import dev.omnigraph.engine.query.Ast.Pos;
import dev.omnigraph.engine.query.ReadPlan.Constant;
import dev.omnigraph.engine.query.ReadPlan.Operand;
import dev.omnigraph.engine.query.ReadPlan.PropertyRef;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import java.util.List;
import java.util.Optional;

/**
 * Type-checks the search calls: {@code search}/{@code fuzzy} (T19) and {@code match_text} (T20) as match clauses,
 * {@code bm25} (T20), {@code nearest} (T15) and {@code rrf} (T21) as rankings in {@code return} and {@code order}.
 * The field is a property access ({@code $v.prop}) of the right type; queries and parameters of the calls are
 * literals or declared parameters.
 */
final class SearchChecker {
    /** The largest fuzzy edit distance (as Lance/tantivy fuzzy queries). */
    static final int MAX_FUZZY_DISTANCE = 2;

    private final ReadChecker reads;
    private final CheckContext cx;

    SearchChecker(ReadChecker reads) {
        this.reads = reads;
        this.cx = reads.cx;
    }

    /** The error code for misuse of {@code function}. */
    static String code(String function) {
        return switch (function) {
            case "search", "fuzzy" -> "T19";
            case "match_text", "bm25" -> "T20";
            case "nearest" -> "T15";
            default -> "T21";
        };
    }

    TextFilter textClause(ReadChecker.Scope scope, Ast.TextClause clause) {
        Ast.SearchCall c = clause.call();
        String code = code(c.function());
        TextFilter.Op op = switch (c.function()) {
            case "search" -> TextFilter.Op.SEARCH;
            case "fuzzy" -> TextFilter.Op.FUZZY;
            default -> TextFilter.Op.MATCH_TEXT;
        };
        int max = op == TextFilter.Op.FUZZY ? 3 : 2;
        arity(c, 2, max, op == TextFilter.Op.FUZZY ? "fuzzy($var.prop, query[, distance])"
                : c.function() + "($var.prop, query)");
        PropertyRef field = textField(scope, c, code);
        Operand query = stringConstant(c, c.args().get(1), code);
        Operand distance = c.args().size() == 3 ? distance(c.args().get(2)) : null;
        return new TextFilter(op, field, query, distance);
    }

    /** A ranking used as a value (return, order). */
    Rank rank(ReadChecker.Scope scope, Ast.SearchCall c) {
        String code = code(c.function());
        switch (c.function()) {
            case "nearest" -> {
                arity(c, 2, 2, "nearest($var.vector, query)");
                return nearest(scope, c);
            }
            case "bm25" -> {
                arity(c, 2, 2, "bm25($var.prop, query)");
                return new Rank.Bm25(textField(scope, c, code), stringConstant(c, c.args().get(1), code));
            }
            case "rrf" -> {
                arity(c, 2, 3, "rrf(rank, rank[, k]) with nearest(…) or bm25(…) as ranks");
                Rank a = rrfPart(scope, c.args().get(0));
                Rank b = rrfPart(scope, c.args().get(1));
                return new Rank.Rrf(a, b, c.args().size() == 3 ? rrfK(c.args().get(2)) : null);
            }
            default -> throw cx.error(c.pos(), code, c.function() + "(…) is a match clause (a filter), not a value;"
                    + " write it inside match { }");
        }
    }

    private void arity(Ast.SearchCall c, int min, int max, String form) {
        int n = c.args().size();
        if (n < min || n > max)
            throw cx.error(c.pos(), code(c.function()), c.function() + "(…) takes " + (min == max ? min : min + " or " + max)
                    + " arguments, got " + n + ": " + form);
    }

    /** The first argument of a text call: a String property of a bound variable. */
    private PropertyRef textField(ReadChecker.Scope scope, Ast.SearchCall c, String code) {
        Ast.Expr e = c.args().get(0);
        if (!(e instanceof Ast.PropAccess pa))
            throw cx.error(e.pos(), code, c.function() + "(…) needs a String property ($var.prop) as its first argument");
        PropertyRef ref = reads.propertyRef(scope, pa);
        PropertyType t = ref.property().type();
        if (!(t instanceof PropertyType.Scalar s && s.kind() == ScalarKind.STRING))
            throw cx.error(e.pos(), code, c.function() + "(…) needs a String property, but " + pa.variable() + "."
                    + pa.property() + " is " + t.spelling());
        return ref;
    }

    /** A String literal or a String parameter. */
    private Operand stringConstant(Ast.SearchCall c, Ast.Expr e, String code) {
        if (e instanceof Ast.StrLit s) return new Constant(new ValueExpr.Literal(s.value()), Types.STRING, false);
        Optional<ParamDecl> p = e instanceof Ast.Var v ? cx.param(v.name()) : Optional.empty();
        if (p.isPresent() && Types.scalarKind(p.get().type()) == ScalarKind.STRING)
            return new Constant(new ValueExpr.Param(p.get().name()), Types.STRING, p.get().optional());
        String got = p.map(d -> "parameter $" + d.name() + " is " + d.spelling())
                .orElse(e instanceof Ast.Var v ? "$" + v.name() + " is not a declared parameter" : "got another expression");
        throw cx.error(e.pos(), code, c.function() + "(…) needs a String literal or String parameter as its query ("
                + got + ")");
    }

    private Operand distance(Ast.Expr e) {
        if (e instanceof Ast.IntLit i) {
            if (i.value().signum() < 0 || i.value().compareTo(java.math.BigInteger.valueOf(MAX_FUZZY_DISTANCE)) > 0)
                throw cx.error(e.pos(), "T19", "fuzzy distance must be between 0 and " + MAX_FUZZY_DISTANCE + ", got " + i.value());
            return new Constant(new ValueExpr.Literal(i.value().longValueExact()), Types.I64, false);
        }
        return integerParam(e, "T19", "fuzzy distance");
    }

    private Operand rrfK(Ast.Expr e) {
        if (e instanceof Ast.IntLit i) {
            if (i.value().signum() <= 0 || i.value().bitLength() >= 32)
                throw cx.error(e.pos(), "T21", "rrf k must be a positive integer below 2^31, got " + i.value());
            return new Constant(new ValueExpr.Literal(i.value().longValueExact()), Types.I64, false);
        }
        return integerParam(e, "T21", "rrf k");
    }

    private Operand integerParam(Ast.Expr e, String code, String what) {
        Optional<ParamDecl> p = e instanceof Ast.Var v ? cx.param(v.name()) : Optional.empty();
        ScalarKind k = p.map(d -> Types.scalarKind(d.type())).orElse(null);
        if (p.isEmpty() || k == null || !k.isInteger() || p.get().optional())
            throw cx.error(e.pos(), code, what + " must be an integer literal or a non-optional integer parameter");
        return new Constant(new ValueExpr.Param(p.get().name()), Types.I64, false);
    }

    private Rank rrfPart(ReadChecker.Scope scope, Ast.Expr e) {
        if (e instanceof Ast.SearchCall c && (c.function().equals("nearest") || c.function().equals("bm25")))
            return rank(scope, c);
        throw cx.error(e.pos(), "T21", "rrf(…) fuses rankings: each of its first two arguments must be nearest(…) or bm25(…)");
    }

    private Rank nearest(ReadChecker.Scope scope, Ast.SearchCall c) {
        Ast.Expr e = c.args().get(0);
        if (!(e instanceof Ast.PropAccess pa))
            throw cx.error(e.pos(), "T15", "nearest(…) needs a Vector property ($var.prop) as its first argument");
        PropertyRef ref = reads.propertyRef(scope, pa);
        if (!(ref.property().type() instanceof PropertyType.VectorOf v))
            throw cx.error(pa.propertyPos(), "T15", "nearest(…) needs a Vector property, but " + pa.variable() + "."
                    + pa.property() + " is " + ref.property().type().spelling());
        Ast.Expr q = c.args().get(1);
        Pos at = q.pos();
        if (q instanceof Ast.ListLit lit) {
            try {
                return new Rank.Nearest(ref, new Constant(new ValueExpr.Literal(Types.coerce(lit, v)), v, false));
            } catch (Values.Mismatch m) {
                throw cx.error(m.pos != null ? m.pos : at, "T15", "nearest query vector: " + m.getMessage());
            }
        }
        Optional<ParamDecl> p = q instanceof Ast.Var var ? cx.param(var.name()) : Optional.empty();
        if (p.isEmpty())
            throw cx.error(at, "T15", "nearest(…) needs a Vector(" + v.dim() + ") parameter or a list literal as its query");
        if (!(p.get().type() instanceof PropertyType.VectorOf pv))
            throw cx.error(at, "T15", "nearest(…) needs a Vector(" + v.dim() + ") query, but $" + p.get().name() + " is "
                    + p.get().spelling());
        if (pv.dim() != v.dim())
            throw cx.error(at, "T15", "vector dimension mismatch: " + pa.variable() + "." + pa.property() + " is "
                    + v.spelling() + " but $" + p.get().name() + " is " + pv.spelling());
        return new Rank.Nearest(ref, new Constant(new ValueExpr.Param(p.get().name()), v, p.get().optional()));
    }

    /** Whether an ordering or projection list uses a ranking of {@code function}, at any depth. */
    static boolean uses(List<? extends Operand> ops, Class<? extends Rank> kind) {
        for (Operand op : ops) if (uses(op, kind)) return true;
        return false;
    }

    static boolean uses(Operand op, Class<? extends Rank> kind) {
        if (kind.isInstance(op)) return true;
        return op instanceof Rank.Rrf r && (uses(r.first(), kind) || uses(r.second(), kind));
    }
}

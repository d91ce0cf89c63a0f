package dev.omnigraph.engine.query;

import dev.omnigraph.engine.query.Ast.Pos;
import dev.omnigraph.engine.query.Token.Kind;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/** Expressions, match values and literals of {@code .gq}; driven by {@link Parser}, sharing its token cursor. */
final class ExprParser {
    private final Parser p;

    ExprParser(Parser p) {
        this.p = p;
    }

    /** The filter operator spelled by this token, or null. */
    static CompareOp compareOp(Token t) {
        return switch (t.kind()) {
            case EQ -> CompareOp.EQ;
            case NE -> CompareOp.NE;
            case LT -> CompareOp.LT;
            case LE -> CompareOp.LE;
            case GT -> CompareOp.GT;
            case GE -> CompareOp.GE;
            case IDENT -> t.text().equals("contains") ? CompareOp.CONTAINS
                    : t.text().equals("starts_with") ? CompareOp.STARTS_WITH : null;
            default -> null;
        };
    }

    Ast.Expr expr() {
        Token t = p.peek();
        switch (t.kind()) {
            case VARIABLE -> {
                p.next();
                if (p.at(Kind.DOT)) {
                    p.next();
                    Token prop = p.peek();
                    if (!prop.is(Kind.IDENT))
                        throw p.syntax(prop, "expected a property name after '$" + t.text() + ".', found " + prop.describe());
                    p.next();
                    return new Ast.PropAccess(t.text(), prop.text(), t.pos(), prop.pos());
                }
                return new Ast.Var(t.text(), t.pos());
            }
            case IDENT -> {
                if (p.peek(1).is(Kind.LPAREN)) return call(t);
                if (t.text().equals("true") || t.text().equals("false")) return literal();
                p.next();
                return new Ast.AliasRef(t.text(), t.pos());
            }
            case INTEGER, FLOAT, STRING, LBRACKET -> {
                return literal();
            }
            default -> throw p.syntax(t, "expected an expression ($var.property, $var, a literal, now() or an"
                    + " aggregate), found " + t.describe());
        }
    }

    private Ast.Expr call(Token name) {
        switch (name.text()) {
            case "search", "fuzzy", "match_text", "bm25", "nearest", "rrf" -> {
                return searchCall(name);
            }
            case "now" -> {
                return now();
            }
            case "date", "datetime" -> {
                return literal();
            }
            case "count", "sum", "avg", "min", "max" -> {
                p.enter(name);
                p.next();
                p.next(); // '('
                Ast.Expr arg = expr();
                p.expect(Kind.RPAREN, " to close " + name.text() + "(…)");
                p.leave();
                return new Ast.Aggregate(AggFn.valueOf(name.text().toUpperCase(java.util.Locale.ROOT)), arg, name.pos());
            }
            default -> throw p.syntax(name, "unknown function '" + name.text()
                    + "' (known: now, date, datetime, count, sum, avg, min, max, search, fuzzy, match_text, bm25, nearest, rrf)");
        }
    }

    /** {@code fn(arg, …)}: the arguments are expressions; arity and kinds are the checker's (T15, T19–T21). */
    private Ast.SearchCall searchCall(Token name) {
        p.enter(name);
        p.next();
        p.next(); // '('
        List<Ast.Expr> args = new ArrayList<>();
        if (!p.at(Kind.RPAREN)) {
            do {
                args.add(expr());
            } while (p.at(Kind.COMMA) && p.next() != null);
        }
        p.expect(Kind.RPAREN, " to close " + name.text() + "(…)");
        p.leave();
        return new Ast.SearchCall(name.text(), args, name.pos());
    }

    private Ast.Now now() {
        Token n = p.next();
        p.expect(Kind.LPAREN, " after 'now'");
        p.expect(Kind.RPAREN, " after 'now('");
        return new Ast.Now(n.pos());
    }

    /** A binding match value or mutation value: a literal, a {@code $variable} or {@code now()}. */
    Ast.Expr matchValue() {
        Token t = p.peek();
        if (t.is(Kind.VARIABLE)) {
            p.next();
            if (p.at(Kind.DOT))
                throw p.syntax(p.peek(), "a value here must be a literal, a $parameter or now(); property access is not allowed");
            return new Ast.Var(t.text(), t.pos());
        }
        if (t.isWord("now") && p.peek(1).is(Kind.LPAREN)) return now();
        if (isLiteralStart(t)) return literal();
        throw p.syntax(t, "expected a literal, a $parameter or now(), found " + t.describe());
    }

    private boolean isLiteralStart(Token t) {
        return switch (t.kind()) {
            case INTEGER, FLOAT, STRING, LBRACKET -> true;
            case IDENT -> t.text().equals("true") || t.text().equals("false")
                    || ((t.text().equals("date") || t.text().equals("datetime")) && p.peek(1).is(Kind.LPAREN));
            default -> false;
        };
    }

    Ast.Literal literal() {
        Token t = p.peek();
        switch (t.kind()) {
            case INTEGER -> {
                p.next();
                return new Ast.IntLit(new BigInteger(t.text()), t.pos());
            }
            case FLOAT -> {
                p.next();
                double v = Double.parseDouble(t.text());
                if (Double.isInfinite(v)) throw p.syntax(t, "float literal " + t.text() + " is out of range");
                return new Ast.FloatLit(v, t.text(), t.pos());
            }
            case STRING -> {
                p.next();
                return new Ast.StrLit(t.text(), t.pos());
            }
            case LBRACKET -> {
                p.enter(t);
                p.next();
                List<Ast.Literal> items = new ArrayList<>();
                if (!p.at(Kind.RBRACKET)) {
                    do {
                        Token item = p.peek();
                        if (!isLiteralStart(item))
                            throw p.syntax(item, "list literals hold literals only, found " + item.describe());
                        items.add(literal());
                    } while (p.at(Kind.COMMA) && p.next() != null);
                }
                p.expect(Kind.RBRACKET, " to close the list literal");
                p.leave();
                return new Ast.ListLit(items, t.pos());
            }
            case IDENT -> {
                if (t.text().equals("true") || t.text().equals("false")) {
                    p.next();
                    return new Ast.BoolLit(t.text().equals("true"), t.pos());
                }
                if (t.text().equals("date") || t.text().equals("datetime")) return temporal(t);
            }
            default -> { }
        }
        throw p.syntax(t, "expected a literal, found " + t.describe());
    }

    private Ast.Literal temporal(Token kw) {
        p.next();
        p.expect(Kind.LPAREN, " after '" + kw.text() + "'");
        Token s = p.expect(Kind.STRING, " as the " + kw.text() + " text");
        p.expect(Kind.RPAREN, " to close " + kw.text() + "(…)");
        Pos at = s.pos();
        try {
            if (kw.text().equals("date")) return new Ast.DateLit(Values.parseDate(s.text()), kw.pos());
            return new Ast.DateTimeLit(Values.parseDateTime(s.text()), kw.pos());
        } catch (IllegalArgumentException e) {
            throw p.coded(at, "T3", "invalid " + kw.text() + " literal \"" + s.text() + "\": " + e.getMessage());
        }
    }
}

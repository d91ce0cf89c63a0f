package dev.omnigraph.engine.query;

import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import java.util.ArrayList;
import java.util.List;

/**
 * Compile-time typing rules: which declared types may flow into which, which may be compared, and how a literal
 * becomes the Java value of the type it meets. Literals are strict about their family (a string literal is
 * never a Date; write {@code date("…")}), while integer literals fit any numeric type whose range holds them.
 */
final class Types {
    private Types() {}

    static final PropertyType STRING = new PropertyType.Scalar(ScalarKind.STRING);
    static final PropertyType I64 = new PropertyType.Scalar(ScalarKind.I64);
    static final PropertyType F64 = new PropertyType.Scalar(ScalarKind.F64);
    static final PropertyType DATETIME = new PropertyType.Scalar(ScalarKind.DATETIME);

    /** The scalar kind, or null for lists, vectors and enums. */
    static ScalarKind scalarKind(PropertyType t) {
        return t instanceof PropertyType.Scalar s ? s.kind() : null;
    }

    static boolean isStringLike(PropertyType t) {
        return t instanceof PropertyType.EnumOf || scalarKind(t) == ScalarKind.STRING;
    }

    static boolean isNumeric(PropertyType t) {
        ScalarKind k = scalarKind(t);
        return k != null && k.isNumeric();
    }

    static boolean isBlob(PropertyType t) {
        return scalarKind(t) == ScalarKind.BLOB;
    }

    static boolean isCollection(PropertyType t) {
        return t instanceof PropertyType.ListOf || t instanceof PropertyType.VectorOf;
    }

    /** The element type a list's membership test compares with. */
    static PropertyType element(PropertyType.ListOf l) {
        return new PropertyType.Scalar(l.element());
    }

    /**
     * Whether a value declared {@code from} (a parameter) may be stored into or matched against {@code to}:
     * same family; integers widen into any integer (range-checked per request) or float; F32/F64 into either
     * float; String into an enum (value checked per request); lists element-wise; vectors of equal dimension.
     */
    static boolean assignable(PropertyType from, PropertyType to) {
        if (from instanceof PropertyType.ListOf f && to instanceof PropertyType.ListOf t)
            return assignable(element(f), element(t));
        if (from instanceof PropertyType.VectorOf f && to instanceof PropertyType.VectorOf t) return f.dim() == t.dim();
        if (to instanceof PropertyType.EnumOf) return isStringLike(from);
        ScalarKind f = scalarKind(from);
        ScalarKind t = scalarKind(to);
        if (f == null || t == null) return false;
        if (f == t) return true;
        if (f == ScalarKind.STRING && t == ScalarKind.BLOB) return true; // a "base64:…" String feeds a Blob
        if (f.isInteger()) return t.isNumeric();
        return f.isNumeric() && !f.isInteger() && t.isNumeric() && !t.isInteger();
    }

    /** Whether two scalar operands of a comparison may be compared (numbers by value, strings with enums). */
    static boolean comparable(PropertyType a, PropertyType b) {
        if (isCollection(a) || isCollection(b)) return false;
        if (isNumeric(a) && isNumeric(b)) return true;
        if (isStringLike(a) && isStringLike(b)) return true;
        return scalarKind(a) != null && scalarKind(a) == scalarKind(b);
    }

    /**
     * The type a literal compared with a {@code t} slot takes: a fractional literal against an integer slot is an
     * F64 compared by value (as upstream: {@code age = 30.5} runs and matches nothing, nothing is truncated).
     */
    static PropertyType comparisonTarget(Ast.Literal lit, PropertyType t) {
        return lit instanceof Ast.FloatLit && isNumeric(t) && scalarKind(t).isInteger() ? F64 : t;
    }

    /**
     * Whether a literal that did not fit a comparison with {@code t} is of another family altogether (T7, an
     * operand type mismatch, e.g. {@code age > "old"}) rather than a value the family cannot hold (T3).
     */
    static boolean otherFamily(Ast.Literal lit, PropertyType t) {
        try {
            return !comparable(naturalType(lit), t);
        } catch (Values.Mismatch m) {
            return false;
        }
    }

    // ---- literals --------------------------------------------------------------------------------------

    /**
     * The Java value of a literal stored into / compared with {@code target}.
     *
     * @throws Values.Mismatch when the literal's family or range does not fit
     */
    static Object coerce(Ast.Literal lit, PropertyType target) {
        if (lit instanceof Ast.ListLit list) {
            if (target instanceof PropertyType.ListOf l) {
                List<Object> out = new ArrayList<>();
                for (Ast.Literal item : list.items()) {
                    if (item instanceof Ast.ListLit) throw new Values.Mismatch("nested lists are not supported", item.pos());
                    try {
                        out.add(coerce(item, element(l)));
                    } catch (Values.Mismatch m) {
                        throw m.pos != null ? m : new Values.Mismatch(m.getMessage(), item.pos());
                    }
                }
                return java.util.Collections.unmodifiableList(out);
            }
            if (target instanceof PropertyType.VectorOf v) {
                List<Object> raw = new ArrayList<>();
                for (Ast.Literal item : list.items()) {
                    if (!(item instanceof Ast.IntLit) && !(item instanceof Ast.FloatLit))
                        throw new Values.Mismatch("expected " + target.spelling() + ", got a list holding " + describe(item), item.pos());
                    raw.add(raw(item));
                }
                if (raw.size() != v.dim())
                    throw new Values.Mismatch("expected " + target.spelling() + ", got a list of " + raw.size() + " numbers");
                return Values.coerce(raw, target, false);
            }
            throw new Values.Mismatch("expected " + target.spelling() + ", got a list literal");
        }
        boolean fits = switch (familyOf(lit)) {
            case "int" -> isNumeric(target);
            case "float" -> isNumeric(target) && !scalarKind(target).isInteger();
            case "string" -> isStringLike(target) || scalarKind(target) == ScalarKind.BLOB; // "base64:…" feeds a Blob
            case "bool" -> scalarKind(target) == ScalarKind.BOOL;
            case "date" -> scalarKind(target) == ScalarKind.DATE;
            default -> scalarKind(target) == ScalarKind.DATETIME;
        };
        if (!fits) {
            String hint = lit instanceof Ast.StrLit && scalarKind(target) == ScalarKind.DATE ? " (write date(\"…\"))"
                    : lit instanceof Ast.StrLit && scalarKind(target) == ScalarKind.DATETIME ? " (write datetime(\"…\"))" : "";
            throw new Values.Mismatch("expected " + target.spelling() + ", got " + describe(lit) + hint);
        }
        return Values.coerce(raw(lit), target, false);
    }

    /** The type a literal has on its own (no other operand to adapt to). */
    static PropertyType naturalType(Ast.Literal lit) {
        if (lit instanceof Ast.IntLit i)
            return i.value().bitLength() < 64 ? I64 : new PropertyType.Scalar(ScalarKind.U64);
        if (lit instanceof Ast.FloatLit) return F64;
        if (lit instanceof Ast.StrLit) return STRING;
        if (lit instanceof Ast.BoolLit) return new PropertyType.Scalar(ScalarKind.BOOL);
        if (lit instanceof Ast.DateLit) return new PropertyType.Scalar(ScalarKind.DATE);
        if (lit instanceof Ast.DateTimeLit) return DATETIME;
        ScalarKind kind = null;
        for (Ast.Literal item : ((Ast.ListLit) lit).items()) {
            if (item instanceof Ast.ListLit) throw new Values.Mismatch("nested lists are not supported", item.pos());
            ScalarKind k = scalarKind(naturalType(item));
            if (kind == null || kind == k) kind = k;
            else if (kind.isNumeric() && k.isNumeric()) kind = kind.isInteger() && k.isInteger() ? kind : ScalarKind.F64;
            else throw new Values.Mismatch("list literal mixes " + kind.spelling() + " and " + k.spelling() + " items");
        }
        return new PropertyType.ListOf(kind == null ? ScalarKind.STRING : kind);
    }

    private static String familyOf(Ast.Literal lit) {
        if (lit instanceof Ast.IntLit) return "int";
        if (lit instanceof Ast.FloatLit) return "float";
        if (lit instanceof Ast.StrLit) return "string";
        if (lit instanceof Ast.BoolLit) return "bool";
        if (lit instanceof Ast.DateLit) return "date";
        return "datetime";
    }

    /** The literal as a caller-style value that {@link Values#coerce} understands. */
    private static Object raw(Ast.Literal lit) {
        if (lit instanceof Ast.IntLit i) return i.value();
        if (lit instanceof Ast.FloatLit f) return f.value();
        if (lit instanceof Ast.StrLit s) return s.value();
        if (lit instanceof Ast.BoolLit b) return b.value();
        if (lit instanceof Ast.DateLit d) return d.value();
        if (lit instanceof Ast.DateTimeLit d) return d.value();
        return ((Ast.ListLit) lit).items().stream().map(Types::raw).toList();
    }

    static String describe(Ast.Literal lit) {
        if (lit instanceof Ast.FloatLit f) return "number " + f.text();
        if (lit instanceof Ast.ListLit) return "a list literal";
        return Values.describe(raw(lit));
    }

    /** The spelling of an expression's type with its nullability. */
    static String spell(PropertyType t, boolean nullable) {
        return t.spelling() + (nullable ? "?" : "");
    }

}

package dev.omnigraph.engine.query;

import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.ValidationError;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * A constant of a compiled query: a literal, a parameter or {@code now()}. The checker has already proved the
 * value fits where it is used; {@link #resolve} fixes it for one request.
 */
public sealed interface ValueExpr {

    /** A literal, already converted to the engine Java value of the type it is compared with or assigned to. */
    record Literal(Object javaValue) implements ValueExpr {}

    /** {@code $name}; {@code name} is without the {@code $}. */
    record Param(String name) implements ValueExpr {}

    /** {@code now()}: the request's timestamp, one value for the whole request. */
    record Now() implements ValueExpr {}

    /**
     * The Java value for one request, converted to {@code target} (e.g. an I64 parameter into an F64 property
     * becomes a Double; a String parameter into an enum property is checked against its values). Null only
     * for an absent optional parameter.
     *
     * @throws BadRequest when a parameter's value does not fit the target (out of range, not an enum value)
     */
    default Object resolve(PropertyType target, BoundParams params, Instant now) {
        if (this instanceof Literal l) return l.javaValue();
        if (this instanceof Now) {
            if (!(target instanceof PropertyType.Scalar s) || s.kind() != ScalarKind.DATETIME)
                throw new BadRequest("now() can only be used as a DateTime, not " + target.spelling());
            return now.truncatedTo(ChronoUnit.MILLIS);
        }
        String name = ((Param) this).name();
        Object value = params.get(name);
        PropertyType from = params.decl(name).type();
        boolean unsigned = from instanceof PropertyType.Scalar s ? s.kind() == ScalarKind.U64
                : from instanceof PropertyType.ListOf l && l.element() == ScalarKind.U64;
        try {
            return Values.coerce(value, target, unsigned);
        } catch (Values.Mismatch m) {
            throw new BadRequest("param $" + name + ": " + m.getMessage());
        }
    }

    /**
     * As {@link #resolve(PropertyType, BoundParams, Instant)} for an assignment to {@code typeName.column}, refusing
     * null when the slot is not nullable. A String that is not one of an enum's values breaks the schema, so it is
     * a {@link ValidationError} naming type and property (a literal one was already refused at compile time, T3).
     */
    default Object resolve(PropertyType target, boolean nullable, String typeName, String column, BoundParams params,
                           Instant now) {
        String what = typeName + "." + column;
        if (target instanceof PropertyType.EnumOf allowed && this instanceof Param p
                && params.get(p.name()) instanceof String given && !allowed.values().contains(given)) {
            throw new ValidationError(typeName, column, null, what + ": '" + given + "' (param $" + p.name()
                    + ") is not an allowed value of " + allowed.spelling());
        }
        Object v = resolve(target, params, now);
        if (v == null && !nullable)
            throw new BadRequest("param $" + ((Param) this).name() + " is null but " + what + " is not nullable");
        return v;
    }
}

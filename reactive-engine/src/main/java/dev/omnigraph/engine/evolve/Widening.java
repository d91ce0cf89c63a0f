package dev.omnigraph.engine.evolve;

import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import java.util.Map;
import java.util.Set;

/** The property type changes a schema apply converts without loss (everything else is refused). */
final class Widening {
    private static final Map<ScalarKind, Set<ScalarKind>> LOSSLESS = Map.of(
            ScalarKind.I32, Set.of(ScalarKind.I64, ScalarKind.F64),
            ScalarKind.U32, Set.of(ScalarKind.U64, ScalarKind.I64, ScalarKind.F64),
            ScalarKind.F32, Set.of(ScalarKind.F64));

    private Widening() {
    }

    static boolean allowed(PropertyType from, PropertyType to) {
        if (from instanceof PropertyType.EnumOf && to instanceof PropertyType.Scalar s) {
            return s.kind() == ScalarKind.STRING;
        }
        return from instanceof PropertyType.Scalar a && to instanceof PropertyType.Scalar b
                && LOSSLESS.getOrDefault(a.kind(), Set.of()).contains(b.kind());
    }
}

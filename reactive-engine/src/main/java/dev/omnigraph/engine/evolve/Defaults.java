package dev.omnigraph.engine.evolve;

import dev.omnigraph.engine.schema.Annotation;
import dev.omnigraph.engine.schema.Property;
import dev.omnigraph.engine.schema.PropertyType;

/** The value of {@code @default(v)} on a newly added property, typed as the property stores it. */
final class Defaults {
    private Defaults() {
    }

    /** The default, or null when the property has none. */
    static Object of(Property property, SourcePositions positions, String typeName) {
        Annotation annotation = property.annotation("default").orElse(null);
        if (annotation == null || annotation.value() == null) {
            return null;
        }
        String text = annotation.value();
        try {
            if (property.type() instanceof PropertyType.EnumOf allowed) {
                if (!allowed.values().contains(text)) {
                    throw new IllegalArgumentException("'" + text + "' is not one of " + allowed.values());
                }
                return text;
            }
            if (property.type() instanceof PropertyType.Scalar scalar) {
                return switch (scalar.kind()) {
                    case STRING -> text;
                    case BOOL -> switch (text) {
                        case "true" -> Boolean.TRUE;
                        case "false" -> Boolean.FALSE;
                        default -> throw new IllegalArgumentException("'" + text + "' is not a Bool");
                    };
                    case I32 -> Integer.parseInt(text);
                    case I64, U32, U64 -> Long.parseLong(text);
                    case F32 -> Float.parseFloat(text);
                    case F64 -> Double.parseDouble(text);
                    default -> throw new IllegalArgumentException("@default is not supported for " + scalar.kind());
                };
            }
            throw new IllegalArgumentException("@default is only supported for scalar and enum properties");
        } catch (IllegalArgumentException bad) {
            throw positions.refuse(typeName, property.name(), "OG-MF-108", "bad @default: " + bad.getMessage());
        }
    }
}

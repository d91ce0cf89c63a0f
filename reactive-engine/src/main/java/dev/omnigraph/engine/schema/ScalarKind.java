package dev.omnigraph.engine.schema;

import java.util.Optional;

/**
 * The scalar base types of {@code .pg}. {@code Blob} holds bytes: stored, loaded, exported and read through the blob
 * API, but never a read value of a query (T24 and friends).
 */
public enum ScalarKind {
    STRING("String"),
    BOOL("Bool"),
    I32("I32"),
    I64("I64"),
    U32("U32"),
    U64("U64"),
    F32("F32"),
    F64("F64"),
    DATE("Date"),
    DATETIME("DateTime"),
    BLOB("Blob");

    private final String spelling;

    ScalarKind(String spelling) {
        this.spelling = spelling;
    }

    /** The name as written in {@code .pg} source and in the IR ({@code "DateTime"}, {@code "U64"}, …). */
    public String spelling() {
        return spelling;
    }

    public boolean isNumeric() {
        return switch (this) {
            case I32, I64, U32, U64, F32, F64 -> true;
            default -> false;
        };
    }

    public boolean isInteger() {
        return switch (this) {
            case I32, I64, U32, U64 -> true;
            default -> false;
        };
    }

    public static Optional<ScalarKind> fromSpelling(String text) {
        for (ScalarKind kind : values()) {
            if (kind.spelling.equals(text)) return Optional.of(kind);
        }
        return Optional.empty();
    }
}

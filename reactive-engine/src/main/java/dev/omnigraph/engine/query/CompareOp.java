package dev.omnigraph.engine.query;

/** A comparison operator of a filter or mutation predicate. */
public enum CompareOp {
    EQ("="),
    NE("!="),
    LT("<"),
    LE("<="),
    GT(">"),
    GE(">="),
    /** List membership when the left side is a list, exact substring when it is a String. */
    CONTAINS("contains"),
    /** Exact, case-sensitive prefix. */
    STARTS_WITH("starts_with");

    private final String symbol;

    CompareOp(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }

    /** Whether the operator orders its operands ({@code < <= > >=}). */
    public boolean isOrdering() {
        return this == LT || this == LE || this == GT || this == GE;
    }
}

package dev.omnigraph.engine.query;

/** An aggregate function of a return projection. */
public enum AggFn {
    COUNT, SUM, AVG, MIN, MAX;

    public String keyword() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}

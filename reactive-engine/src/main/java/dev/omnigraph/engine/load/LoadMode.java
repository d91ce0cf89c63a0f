package dev.omnigraph.engine.load;

/**
 * How a load applies its records: {@code APPEND} strict inserts (an existing id is a key conflict),
 * {@code MERGE} upserts (the last line for an id wins), {@code OVERWRITE} replaces each touched type's whole image.
 */
public enum LoadMode {
    APPEND,
    MERGE,
    OVERWRITE;

    /** Parses "append" / "merge" / "overwrite" (any case). */
    public static LoadMode parse(String text) {
        for (LoadMode mode : values()) {
            if (mode.name().equalsIgnoreCase(text)) {
                return mode;
            }
        }
        throw new dev.omnigraph.storage.error.BadRequest("unknown load mode '" + text + "'; use append, merge or overwrite");
    }
}

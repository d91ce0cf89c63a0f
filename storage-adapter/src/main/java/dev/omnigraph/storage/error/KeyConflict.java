package dev.omnigraph.storage.error;

import java.util.List;

/** A strict insert met ids that already exist. Terminal: retrying the same input cannot succeed. */
public final class KeyConflict extends OmnigraphException {
    private final String typeName;
    private final List<String> ids;

    public KeyConflict(String typeName, List<String> ids) {
        super(ErrorCode.KEY_CONFLICT, "key conflict on " + typeName + ": id(s) already exist: " + preview(ids)
                + " (use merge / a keyed upsert to replace existing entities)", null);
        this.typeName = typeName;
        this.ids = List.copyOf(ids);
    }

    private static String preview(List<String> ids) {
        return ids.size() <= 10 ? String.join(", ", ids)
                : String.join(", ", ids.subList(0, 10)) + " … (" + ids.size() + " in all)";
    }

    public String typeName() { return typeName; }
    public List<String> ids() { return ids; }
}

package dev.omnigraph.engine.diff;

import dev.omnigraph.storage.error.BadRequest;
import java.util.Locale;

/** The logical operation of one entity change. The order (insert, update, delete) is the reference's rank. */
public enum ChangeOp {
    INSERT, UPDATE, DELETE;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses a wire name; anything else is a BadRequest naming {@code field}. */
    public static ChangeOp parse(String field, String text) {
        for (ChangeOp op : values()) {
            if (op.wireName().equals(text)) return op;
        }
        throw new BadRequest(field + " must be insert, update or delete, not '" + text + "'");
    }
}

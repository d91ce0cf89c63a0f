package dev.omnigraph.storage;

import dev.omnigraph.storage.error.BadRequest;
import java.util.Optional;

/**
 * The one rule for what an {@link ObjectStore} key (or key prefix) may be, whatever the store: a relative,
 * '/'-separated path with no empty, '.' or '..' segment (so it cannot leave the graph root), and no backslash or
 * NUL (which a local file system and an object store would read differently).
 */
public final class ObjectKeys {
    private ObjectKeys() {
    }

    /** Why {@code key} is not a valid key, if it is not. A prefix may be empty and may end with '/'. */
    public static Optional<String> problem(String key, boolean prefix) {
        if (key == null) return Optional.of("it is missing");
        if (key.startsWith("/")) return Optional.of("it must be relative");
        if (key.indexOf('\\') >= 0) return Optional.of("it must not contain a backslash");
        if (key.indexOf('\0') >= 0) return Optional.of("it must not contain a NUL character");
        String path = prefix && key.endsWith("/") ? key.substring(0, key.length() - 1) : key;
        if (path.isEmpty()) return prefix ? Optional.empty() : Optional.of("it is empty");
        for (String segment : path.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                return Optional.of("it has an empty, '.' or '..' segment");
            }
        }
        return Optional.empty();
    }

    /** {@code key} itself, or a {@link BadRequest} saying why it is not a valid key. */
    public static String require(String key, boolean prefix) {
        problem(key, prefix).ifPresent(why -> {
            throw new BadRequest("invalid object key '" + String.valueOf(key).replace('\0', '?') + "': " + why);
        });
        return key;
    }
}

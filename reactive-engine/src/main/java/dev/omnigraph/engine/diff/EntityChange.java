package dev.omnigraph.engine.diff;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One entity change as the change surfaces report it: {@code kind} node/edge, the type's opaque id (it changes
 * when a type is dropped and added again) and name, the entity id, the operation, and the images (an insert has
 * only {@code after}, a delete only {@code before}). Its commit is stated once, on the enclosing block.
 */
public record EntityChange(String kind, String typeId, String typeName, String id, ChangeOp op,
                           Optional<Image> before, Optional<Image> after) {
    public EntityChange {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(typeId, "typeId");
        Objects.requireNonNull(typeName, "typeName");
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(op, "op");
    }

    /**
     * One stored image: property values keyed by the property names of the commit's own schema (a null value keeps
     * its key), and for edges the endpoints ({@code from} = src id, {@code to} = dst id).
     */
    public record Image(Map<String, Object> properties, Optional<Endpoints> endpoints) {
    }

    public record Endpoints(String from, String to) {
    }
}

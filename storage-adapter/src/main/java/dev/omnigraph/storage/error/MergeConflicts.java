package dev.omnigraph.storage.error;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A branch merge found conflicts (collected over every type before failing); nothing was published. The message
 * previews the first three, then "; and N more".
 */
public final class MergeConflicts extends OmnigraphException {
    /** How a merge conflicts: a row rule of the three-way merge, or a rule of the merged image. */
    public enum Kind {
        DIVERGENT_INSERT, DIVERGENT_UPDATE, DELETE_VS_UPDATE,
        ORPHAN_EDGE, UNIQUE_VIOLATION, CARDINALITY_VIOLATION, VALUE_CONSTRAINT_VIOLATION;

        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** One conflict: {@code entityKind} is "node" or "edge"; the id is absent when no single entity is to blame. */
    public record Conflict(String entityKind, String typeName, Optional<String> entityId, Kind kind, String message) {
        public Conflict {
            Objects.requireNonNull(entityKind, "entityKind");
            Objects.requireNonNull(typeName, "typeName");
            Objects.requireNonNull(entityId, "entityId");
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(message, "message");
        }

        String preview() {
            return entityKind + " type '" + typeName + "'" + entityId.map(id -> ", entity id '" + id + "'").orElse("")
                    + " (" + kind.wireName() + ")";
        }
    }

    private final List<Conflict> conflicts;

    public MergeConflicts(List<Conflict> conflicts) {
        super(ErrorCode.MERGE_CONFLICTS, message(conflicts), null);
        this.conflicts = List.copyOf(conflicts);
    }

    public List<Conflict> conflicts() {
        return conflicts;
    }

    private static String message(List<Conflict> conflicts) {
        StringBuilder text = new StringBuilder("merge conflicts: ");
        for (int i = 0; i < Math.min(3, conflicts.size()); i++) {
            text.append(i == 0 ? "" : "; ").append(conflicts.get(i).preview());
        }
        if (conflicts.size() > 3) {
            text.append("; and ").append(conflicts.size() - 3).append(" more");
        }
        return text.toString();
    }
}

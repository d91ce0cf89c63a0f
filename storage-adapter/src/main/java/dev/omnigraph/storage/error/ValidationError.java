package dev.omnigraph.storage.error;

/** Well-formed input that breaks the schema's rules (types, enums, ranges, checks, uniqueness, integrity, cardinality). */
public final class ValidationError extends OmnigraphException {
    private final String typeName;
    private final String property;
    private final String entityId;

    public ValidationError(String typeName, String property, String entityId, String message) {
        super(ErrorCode.VALIDATION_ERROR, message, null);
        this.typeName = typeName;
        this.property = property;
        this.entityId = entityId;
    }

    public String typeName() { return typeName; }
    public String property() { return property; }
    public String entityId() { return entityId; }
}

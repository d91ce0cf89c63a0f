package dev.omnigraph.storage.error;

/** A graph, branch, commit, table or query that does not exist. */
public final class NotFound extends OmnigraphException {
    private final String kind;
    private final String name;

    public NotFound(String kind, String name, String message) {
        super(ErrorCode.NOT_FOUND, message, null);
        this.kind = kind;
        this.name = name;
    }

    public String kind() { return kind; }
    public String name() { return name; }
}

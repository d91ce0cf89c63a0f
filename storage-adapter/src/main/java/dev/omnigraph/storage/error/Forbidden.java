package dev.omnigraph.storage.error;

/**
 * An authorizer refused the operation. The message names the action and what it addressed (graph, branch, target
 * branch), never the rule that would have allowed it.
 */
public final class Forbidden extends OmnigraphException {
    private final String action;

    public Forbidden(String action, String message) {
        super(ErrorCode.FORBIDDEN, message, null);
        this.action = action;
    }

    /** The refused action's wire name ({@code change}, {@code branch_merge}, …). */
    public String action() {
        return action;
    }
}

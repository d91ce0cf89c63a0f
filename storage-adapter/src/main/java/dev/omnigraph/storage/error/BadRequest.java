package dev.omnigraph.storage.error;

/** A request the engine refuses on its face: hostile branch names, unknown query names, mixed insert/delete, bad modes. */
public final class BadRequest extends OmnigraphException {
    public BadRequest(String message) {
        super(ErrorCode.BAD_REQUEST, message, null);
    }
}

package dev.omnigraph.storage.error;

/** A graph root whose storage format stamp this build does not serve. */
public final class UnsupportedStamp extends OmnigraphException {
    private final String found;

    public UnsupportedStamp(String found, String message) {
        super(ErrorCode.UNSUPPORTED_STAMP, message, null);
        this.found = found;
    }

    public String found() { return found; }
}

package dev.omnigraph.storage.error;

/**
 * Stable machine codes for every failure the engine reports, with the HTTP status the edge maps each to.
 * Codes are part of the public contract: clients match on them, so never rename one.
 */
public enum ErrorCode {
    PARSE_ERROR("parse_error", 400),
    VALIDATION_ERROR("validation_error", 400),
    BAD_REQUEST("bad_request", 400),
    NOT_FOUND("not_found", 404),
    FORBIDDEN("forbidden", 403),
    KEY_CONFLICT("key_conflict", 409),
    READ_SET_CONFLICT("read_set_conflict", 409),
    MANIFEST_CONFLICT("manifest_conflict", 409),
    CONFLICT("conflict", 409),
    PRECONDITION_FAILURE("precondition_failure", 412),
    IDEMPOTENCY_KEY_REUSED("idempotency_key_reused", 422),
    RESOURCE_LIMIT("resource_limit", 413),
    UNSUPPORTED_STAMP("unsupported_storage_stamp", 500),
    STORAGE_FAULT("storage_fault", 500),
    STORAGE_OVERLOADED("storage_overloaded", 503),
    QUERY_TIMEOUT("query_timeout", 503),
    RECOVERY_REQUIRED("recovery_required", 503),
    CHANGE_DIFF_REFUSAL("change_diff_refusal", 409),
    CHANGE_FEED_GAP("change_feed_gap", 410),
    MERGE_CONFLICTS("merge_conflicts", 409),
    LEASE_LOST("lease_lost", 503);

    private final String wireName;
    private final int httpStatus;

    ErrorCode(String wireName, int httpStatus) {
        this.wireName = wireName;
        this.httpStatus = httpStatus;
    }

    /** The code as it appears in JSON error bodies and CLI output. */
    public String wireName() {
        return wireName;
    }

    public int httpStatus() {
        return httpStatus;
    }
}

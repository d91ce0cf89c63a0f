package dev.omnigraph.http.wire;

/**
 * A refusal only the HTTP edge can produce (no route, wrong method, wrong content type, bad token, draining). Engine
 * failures stay {@code OmnigraphException}s; this carries the status and the reference's coarse code directly.
 */
public final class HttpProblem extends RuntimeException {
    private final int status;
    private final String code;
    private final String detailName;
    private final com.fasterxml.jackson.databind.node.ObjectNode detail;

    public HttpProblem(int status, String code, String message) {
        this(status, code, message, null, null);
    }

    private HttpProblem(int status, String code, String message, String detailName,
                        com.fasterxml.jackson.databind.node.ObjectNode detail) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.detailName = detailName;
        this.detail = detail;
    }

    /** The same refusal with a detail object (e.g. {@code blob_range}) in its error body. */
    public HttpProblem withDetail(String name, com.fasterxml.jackson.databind.node.ObjectNode value) {
        return new HttpProblem(status, code, getMessage(), name, value);
    }

    /** The detail's field name, or null when there is none. */
    public String detailName() {
        return detailName;
    }

    public com.fasterxml.jackson.databind.node.ObjectNode detail() {
        return detail;
    }

    public static HttpProblem notFound(String message) {
        return new HttpProblem(404, "not_found", message);
    }

    public static HttpProblem unsupportedMediaType(String message) {
        return new HttpProblem(415, "bad_request", message);
    }

    public static HttpProblem unauthorized(String message) {
        return new HttpProblem(401, "unauthorized", message);
    }

    public static HttpProblem badRequest(String message) {
        return new HttpProblem(400, "bad_request", message);
    }

    public int status() {
        return status;
    }

    /** The coarse wire code, or null when the status alone (with no detail) is the discriminator. */
    public String code() {
        return code;
    }
}

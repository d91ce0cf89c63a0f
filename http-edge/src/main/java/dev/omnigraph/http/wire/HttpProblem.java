package dev.omnigraph.http.wire;

/**
 * A refusal only the HTTP edge can produce (no route, wrong method, wrong content type, bad token, draining). Engine
 * failures stay {@code OmnigraphException}s; this carries the status and the reference's coarse code directly.
 */
public final class HttpProblem extends RuntimeException {
    private final int status;
    private final String code;

    public HttpProblem(int status, String code, String message) {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
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

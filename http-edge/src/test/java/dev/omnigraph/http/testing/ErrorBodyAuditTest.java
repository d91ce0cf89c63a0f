package dev.omnigraph.http.testing;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The audit every error body passes through catches what it is there to catch. */
class ErrorBodyAuditTest {
    @Test
    void refusesLeaksAndAcceptsACleanBody() {
        String tmp = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath() + "/junit-1/g";
        for (String leak : new String[] {
                "{\"error\":\"no commit x in the graph at " + tmp + "\",\"request_id\":\"a-1\"}",
                "{\"error\":\"failed at rust/lance/src/dataset.rs:120:5\",\"request_id\":\"a-1\"}",
                "{\"error\":\"boom\\n\\tat dev.omnigraph.X.y(X.java:3)\",\"request_id\":\"a-1\"}",
                "{\"error\":\"see file:///srv/g\",\"request_id\":\"a-1\"}",
                "{\"error\":\"no request id\"}"}) {
            assertThatThrownBy(() -> ErrorBodyAudit.check(500, leak)).as(leak).isInstanceOf(AssertionError.class);
        }
        assertThatCode(() -> ErrorBodyAudit.check(404, "{\"error\":\"no route GET /graphs/g/nothing on a graph\","
                + "\"code\":\"not_found\",\"request_id\":\"a-2\"}")).doesNotThrowAnyException();
    }
}

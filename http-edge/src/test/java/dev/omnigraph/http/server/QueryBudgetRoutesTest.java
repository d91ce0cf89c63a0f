package dev.omnigraph.http.server;

import dev.omnigraph.engine.internal.HandleInternals;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.read.QueryExecutor;
import dev.omnigraph.engine.read.QueryLimits;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.Failpoints;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Query budgets over loopback: a refused query is a JSON error with its detail, and the server answers the next
 * request as if nothing had happened.
 */
class QueryBudgetRoutesTest {
    static final int PEOPLE = 403;
    static final String CROSS3 = "query cross() { match { $a: Person $b: Person $c: Person } return { $a.name, $b.name, $c.name } }";
    static final String PEOPLE_QUERY = "query people() { match { $p: Person } return { $p.name } }";

    @TempDir
    Path dir;
    HttpFixture http;

    @AfterEach
    void tearDown() {
        http.close();
    }

    void start(QueryLimits limits) {
        http = new HttpFixture();
        http.init(dir.resolve("social"));
        http.start(OmnigraphServer.Config.of(dir).withQueryLimits(limits));
        StringBuilder data = new StringBuilder();
        for (int i = 0; i < PEOPLE; i++) data.append("{\"type\":\"Person\",\"data\":{\"name\":\"p").append(i).append("\"}}\n");
        Reply load = http.postJson("/graphs/social/load", Json.object().put("data", data.toString()).put("mode", "append"));
        assertThat(load.status()).as(load.toString()).isEqualTo(200);
    }

    Reply query(String source) {
        return http.postJson("/graphs/social/query", Json.object().put("query", source));
    }

    void assertHealthy() {
        Reply next = query(PEOPLE_QUERY);
        assertThat(next.status()).as(next.toString()).isEqualTo(200);
        assertThat(next.json().path("row_count").asInt()).isEqualTo(PEOPLE);
        assertThat(http.get("/healthz").status()).isEqualTo(200);
    }

    @Test
    void theThreeWayCrossProductIs413AndTheNextRequestIsAnswered() {
        start(QueryLimits.DEFAULT);
        Reply refused = query(CROSS3);
        assertThat(refused.status()).as(refused.toString()).isEqualTo(413);
        JsonNode body = refused.json();
        assertThat(body.path("code").asText()).isEqualTo("bad_request");
        assertThat(body.path("resource_limit").path("resource").asText()).isEqualTo("query_intermediate_rows");
        assertThat(body.path("resource_limit").path("limit").asLong()).isEqualTo(1_000_000L);
        assertThat(body.path("resource_limit").path("actual").asLong()).isEqualTo(1_000_001L);
        assertHealthy();
    }

    @Test
    void theServerBudgetAppliesToEveryQuery() {
        start(QueryLimits.DEFAULT.withMaxResultRows(10).withMaxMemoryBytes(2L << 20));
        Reply rows = query("query pairs() { match { $a: Person $b: Person } return { $a.name } order { $a.name } }");
        assertThat(rows.status()).as(rows.toString()).isEqualTo(413);
        assertThat(rows.json().path("resource_limit").path("resource").asText()).isEqualTo("query_memory_bytes");
        Reply limited = query("query some() { match { $p: Person } return { $p.name } order { $p.name } limit 10 }");
        assertThat(limited.status()).as(limited.toString()).isEqualTo(200);
        assertThat(limited.json().path("row_count").asInt()).isEqualTo(10);
        Reply all = query("query all() { match { $p: Person } return { $p.name } order { $p.name } }");
        assertThat(all.status()).isEqualTo(413);
        assertThat(all.json().path("resource_limit").toString())
                .isEqualTo("{\"resource\":\"query_result_rows\",\"limit\":10,\"actual\":" + PEOPLE + "}");
    }

    @Test
    void aStreamedQueryPastItsRowCapAfterTheStatusIsAbortedNeverA200WithPartialRows() {
        // Past one streamed batch (256 rows) the status has gone out: the cap can only cut the response short.
        start(QueryLimits.DEFAULT.withMaxResultRows(300));
        Throwable cut = org.assertj.core.api.Assertions.catchThrowable(() -> query(PEOPLE_QUERY));
        assertThat(cut).as("the client must see the response cut short").isNotNull();
        assertThat(cut.toString()).containsIgnoringCase("prematurely");
        Reply limited = query(PEOPLE_QUERY.replace("} }", "} limit 300 }"));
        assertThat(limited.status()).as(limited.toString()).isEqualTo(200);
        assertThat(limited.json().path("row_count").asInt()).isEqualTo(300);
    }

    @Test
    void aRowCapPassedWithinTheFirstBatchIsA413() {
        // An answer is held until one batch is full, so a cap passed before that is still a proper error response.
        start(QueryLimits.DEFAULT.withMaxResultRows(100));
        Reply over = query(PEOPLE_QUERY);
        assertThat(over.status()).as(over.toString()).isEqualTo(413);
        assertThat(over.json().path("resource_limit").path("resource").asText()).isEqualTo("query_result_rows");
        Reply limited = query(PEOPLE_QUERY.replace("} }", "} limit 100 }"));
        assertThat(limited.status()).as(limited.toString()).isEqualTo(200);
        assertThat(limited.json().path("row_count").asInt()).isEqualTo(100);
    }

    @Test
    void aStalledQueryTimesOutWith503AndTheNextRequestIsAnswered() {
        start(QueryLimits.DEFAULT.withTimeout(Duration.ofMillis(300)));
        Failpoints failpoints = HandleInternals.of(http.server.graph("social").block()).failpoints();
        // The scan never starts within the budget (the failpoint waits ten minutes): only the deadline can end it.
        failpoints.arm(QueryExecutor.SCAN_FAILPOINT, new Failpoints.Action.Delay(600_000));
        try {
            for (String source : new String[] {PEOPLE_QUERY, CROSS3}) { // streamed and in-memory
                Reply timedOut = query(source);
                assertThat(timedOut.status()).as(timedOut.toString()).isEqualTo(503);
                JsonNode body = timedOut.json();
                assertThat(body.has("code")).isFalse();
                assertThat(body.path("query_timeout").path("timeout_ms").asLong()).isEqualTo(300);
                assertThat(body.path("error").asText()).contains("timed out");
            }
        } finally {
            failpoints.disarm(QueryExecutor.SCAN_FAILPOINT);
        }
        // The server is not wedged by the stopped queries. The check runs with the default budget: 300 ms is the
        // stalled queries' deadline, not a promise of how fast a real query is on a busy machine.
        http.server.graph("social").block().withQueryLimits(QueryLimits.DEFAULT);
        assertHealthy();
    }
}

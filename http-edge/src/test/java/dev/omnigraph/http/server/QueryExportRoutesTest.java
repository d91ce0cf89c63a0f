package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code /query}, {@code /read} and {@code /export}. The refusals made at the edge (a mutation sent to /query, a
 * malformed source, branch and snapshot together) pass on their own; the happy paths need the engine's read
 * queries and export.
 */
class QueryExportRoutesTest extends SeededSocialServer {
    @Test
    void refusalsMadeBeforeTheEngineRuns() {
        Reply mutation = http.postJson("/graphs/social/query", Json.object().put("query", HttpFixture.QUERIES).put("name", "addPerson"));
        assertThat(mutation.status()).isEqualTo(400);
        assertThat(mutation.json().path("error").asText()).contains("mutation").contains("/mutate");

        Reply malformed = http.postJson("/graphs/social/query", Json.object().put("query", "query q( {\n}"));
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed.json().path("parse_error").path("line").asInt()).isPositive();

        Reply ambiguous = http.postJson("/graphs/social/query", Json.object().put("query", HttpFixture.QUERIES));
        assertThat(ambiguous.status()).isEqualTo(400);
        assertThat(ambiguous.json().path("error").asText()).contains("people");

        Reply both = http.postJson("/graphs/social/query", Json.object().put("query", HttpFixture.QUERIES)
                .put("name", "people").put("branch", "main").put("snapshot", seeded));
        assertThat(both.status()).isEqualTo(400);

        Reply noSource = http.postJson("/graphs/social/read", "{\"query_name\":\"people\"}");
        assertThat(noSource.status()).isEqualTo(400);
        assertThat(noSource.json().path("error").asText()).contains("query_source");
    }

    @Test
    void queryStreamsTheEnvelopeWithTheCommitItWasServedFrom() {
        Reply reply = http.postJson("/graphs/social/query", Json.object().put("query", HttpFixture.QUERIES).put("name", "people"));
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        JsonNode out = reply.json();
        assertThat(out.path("query_name").asText()).isEqualTo("people");
        assertThat(out.path("target").path("branch").asText()).isEqualTo("main");
        assertThat(out.path("target").path("snapshot").isNull()).isTrue();
        assertThat(out.path("columns")).hasSize(2);
        assertThat(out.path("row_count").asInt()).isEqualTo(2);
        assertThat(out.path("graph_commit_id").asText()).isEqualTo(seeded);
        String nameColumn = out.path("columns").get(0).asText();
        assertThat(out.path("rows").get(0).path(nameColumn).asText()).isEqualTo("Ada");
        assertThat(out.path("rows").get(1).path(out.path("columns").get(1).asText()).asInt()).isEqualTo(41);
    }

    @Test
    void readIsTheLegacyEnvelopeAndSnapshotsTimeTravel() {
        String genesis = http.get("/graphs/social/commits").json().path("commits").get(1).path("graph_commit_id").asText();
        Reply legacy = http.postJson("/graphs/social/read", Json.object().put("query_source", HttpFixture.QUERIES)
                .put("query_name", "people").put("snapshot", genesis));
        assertThat(legacy.status()).as(legacy.toString()).isEqualTo(200);
        assertThat(legacy.json().has("graph_commit_id")).isFalse();
        assertThat(legacy.json().path("target").path("snapshot").asText()).isEqualTo(genesis);
        assertThat(legacy.json().path("row_count").asInt()).isZero();
        assertThat(legacy.json().path("rows")).isEmpty();
    }

    @Test
    void exportStreamsNdjsonThatLoadsBack() {
        Reply export = http.postJson("/graphs/social/export", "{}");
        assertThat(export.status()).as(export.toString()).isEqualTo(200);
        assertThat(export.headers().get("Content-Type")).startsWith("application/x-ndjson");
        List<String> lines = Arrays.stream(export.body().split("\n")).filter(l -> !l.isBlank()).toList();
        assertThat(lines).hasSize(5);
        lines.forEach(line -> Json.parse(line, "line"));

        Reply people = http.postJson("/graphs/social/export", "{\"type_names\":[\"Person\"]}");
        assertThat(people.body().lines().filter(l -> !l.isBlank())).hasSize(2);

        http.init(dir.resolve("copy"));
        Reply reload = http.postJson("/graphs/copy/load", Json.object().put("data", export.body()).put("mode", "append"));
        assertThat(reload.status()).as(reload.toString()).isEqualTo(200);
        assertThat(reload.json().path("total_entities").asInt()).isEqualTo(5);
    }
}

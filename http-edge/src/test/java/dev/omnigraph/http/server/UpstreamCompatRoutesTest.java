package dev.omnigraph.http.server;

import static dev.omnigraph.http.testing.CompatFixture.DATA;
import static dev.omnigraph.http.testing.CompatFixture.QUERIES;
import static dev.omnigraph.http.testing.CompatFixture.SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Upstream differences visible over HTTP (issue 13, item 3), each asserted with the upstream's value. */
class UpstreamCompatRoutesTest {
    @TempDir
    Path dir;
    HttpFixture http;

    @BeforeEach
    void setUp() {
        http = new HttpFixture();
        Omnigraph.init(http.services, dir.resolve("g"), SCHEMA).block(Duration.ofSeconds(60));
        http.start(dir);
    }

    @AfterEach
    void tearDown() {
        http.close();
    }

    JsonNode mutation(String name, String params) {
        return Json.object().put("query", QUERIES).put("name", name).set("params", Json.parse(params, "params"));
    }

    @Test
    void everyLoadRouteGivesEntitiesLoadedForEveryType() {
        Reply envelope = http.postJson("/graphs/g/load", Json.object().put("data", DATA).put("mode", "append"));
        assertThat(envelope.status()).as(envelope.toString()).isEqualTo(200);
        assertThat(envelope.json().path("nodes").toString())
                .isEqualTo("[{\"name\":\"Company\",\"entities_loaded\":1},{\"name\":\"Person\",\"entities_loaded\":2}]");
        assertThat(envelope.json().path("edges").toString())
                .isEqualTo("[{\"name\":\"Knows\",\"entities_loaded\":1},{\"name\":\"WorksAt\",\"entities_loaded\":2}]");

        Reply raw = http.send(HttpMethod.POST, "/graphs/g/load/ndjson?mode=merge",
                Map.of("Content-Type", "application/x-ndjson"), HttpFixture.text(
                        "{\"type\":\"Person\",\"data\":{\"name\":\"Cy\"}}\n{\"type\":\"Company\",\"data\":{\"name\":\"Initech\"}}\n"));
        assertThat(raw.status()).as(raw.toString()).isEqualTo(200);
        assertThat(raw.json().path("nodes").toString())
                .isEqualTo("[{\"name\":\"Company\",\"entities_loaded\":1},{\"name\":\"Person\",\"entities_loaded\":1}]");
        assertThat(raw.json().path("edges").toString()).isEqualTo("[]");
    }

    @Test
    void queryRowsPrintDateTimesWithMilliseconds() {
        http.postJson("/graphs/g/load", Json.object().put("data", DATA).put("mode", "append"));
        Reply query = http.postJson("/graphs/g/query", Json.object().put("query", QUERIES).put("name", "people"));
        assertThat(query.status()).as(query.toString()).isEqualTo(200);
        assertThat(query.json().path("rows").get(0).path("p.seen").asText()).isEqualTo("2026-04-01T08:30:00.000Z");
    }

    @Test
    void mutationCountsStatementsAndAnEnumBreachIsAValidationError() {
        Reply counted = http.postJson("/graphs/g/mutate", mutation("insertThenUpdate", "{\"n\":\"Ada\"}"));
        assertThat(counted.status()).as(counted.toString()).isEqualTo(200);
        assertThat(counted.json().path("affected_nodes").asLong()).isEqualTo(2);

        Reply bad = http.postJson("/graphs/g/mutate", mutation("setStatus", "{\"name\":\"Ada\",\"s\":\"gone\"}"));
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().path("code").asText()).isEqualTo("bad_request"); // the reference's coarse code for 400
        assertThat(bad.json().path("validation_error").toString())
                .isEqualTo("{\"type_name\":\"Person\",\"property\":\"status\"}");
    }
}

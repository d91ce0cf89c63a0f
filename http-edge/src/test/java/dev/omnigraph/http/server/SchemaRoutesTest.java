package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.wire.Json;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code GET /schema} and {@code POST /schema/apply} over real HTTP: apply, no-op, refusals as error bodies. */
class SchemaRoutesTest {
    static final String NEXT = HttpFixture.SCHEMA.replace("bio: String?", "bio: String?\n    nickname: String?");

    @TempDir
    Path dir;
    HttpFixture http;

    @BeforeEach
    void setUp() {
        http = new HttpFixture();
        http.init(dir.resolve("social"));
        http.start(dir);
        assertThat(http.postJson("/graphs/social/mutate", HttpFixture.mutation("addPerson", "{\"name\":\"Ada\",\"age\":36}"))
                .status()).isEqualTo(200);
    }

    @AfterEach
    void tearDown() {
        http.close();
    }

    JsonNode apply(String source, Boolean allowDataLoss) {
        var body = Json.object().put("schema_source", source);
        if (allowDataLoss != null) body.put("allow_data_loss", allowDataLoss);
        HttpFixture.Reply reply = http.postJson("/graphs/social/schema/apply", body);
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        return reply.json();
    }

    @Test
    void applyThenTheSameAgainIsANoOp() {
        JsonNode first = apply(NEXT, null);
        assertThat(first.path("applied").asBoolean()).isTrue();
        assertThat(first.path("supported").asBoolean()).isTrue();
        // The same graph URI every other route answers with, not a server-side path.
        assertThat(first.path("uri").asText()).startsWith("file:").endsWith("social/");
        assertThat(first.path("step_count").asInt()).isEqualTo(1);
        assertThat(first.path("steps").get(0).path("kind").asText()).isEqualTo("add_property");
        assertThat(first.path("steps").get(0).path("effect").asText()).isEqualTo("rewrites");
        assertThat(http.get("/graphs/social/schema").json().path("schema_source").asText()).isEqualTo(NEXT);
        JsonNode second = apply(NEXT, null);
        assertThat(second.path("applied").asBoolean()).isFalse();
        assertThat(second.path("graph_manifest_version").asLong()).isEqualTo(first.path("graph_manifest_version").asLong());
        // Queries compile against the live schema at once.
        HttpFixture.Reply read = http.postJson("/graphs/social/read", Json.object()
                .put("query", "query q() { match { $p: Person } return { $p.name, $p.nickname } }"));
        assertThat(read.status()).as(read.toString()).isEqualTo(200);
    }

    @Test
    void refusalsAreTypedErrorBodies() {
        HttpFixture.Reply lossy = http.postJson("/graphs/social/schema/apply", Json.object()
                .put("schema_source", HttpFixture.SCHEMA.replace("    bio: String?\n", "")));
        assertThat(lossy.status()).isEqualTo(400);
        assertThat(lossy.json().path("code").asText()).isEqualTo("bad_request");
        HttpFixture.Reply garbled = http.postJson("/graphs/social/schema/apply", Json.object().put("schema_source", "node {"));
        assertThat(garbled.status()).isEqualTo(400);
        assertThat(garbled.json().path("parse_error").path("line").asInt()).as(garbled.toString()).isEqualTo(1);
        assertThat(garbled.json().path("parse_error").path("column").asInt()).isEqualTo(6);
        HttpFixture.Reply missing = http.postJson("/graphs/social/schema/apply", Json.object());
        assertThat(missing.status()).isEqualTo(400);
        assertThat(http.get("/graphs/social/schema").json().path("schema_source").asText()).isEqualTo(HttpFixture.SCHEMA);
    }
}

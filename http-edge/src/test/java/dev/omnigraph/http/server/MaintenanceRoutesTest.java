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

/** {@code POST /optimize} and {@code POST /repair} over real HTTP. */
class MaintenanceRoutesTest {
    @TempDir
    Path dir;
    HttpFixture http;

    @BeforeEach
    void setUp() {
        http = new HttpFixture();
        http.init(dir.resolve("social"));
        http.start(dir);
        // The first write builds Person's key index over its own fragment; the next two stay outside it.
        for (String person : new String[] {"{\"name\":\"Ada\",\"age\":36}", "{\"name\":\"Bob\",\"age\":41}",
                "{\"name\":\"Cy\",\"age\":20}"}) {
            assertThat(http.postJson("/graphs/social/mutate", HttpFixture.mutation("addPerson", person)).status()).isEqualTo(200);
        }
    }

    @AfterEach
    void tearDown() {
        http.close();
    }

    @Test
    void optimizeCompactsThenIsANoOpAndRepairPreviewsAnEmptyDriftList() {
        HttpFixture.Reply first = http.postJson("/graphs/social/optimize", Json.object());
        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        JsonNode compacted = first.json().path("compacted");
        assertThat(compacted.size()).isEqualTo(1);
        assertThat(compacted.get(0).path("table_key").asText()).isEqualTo("node:Person");
        assertThat(compacted.get(0).path("fragments_after").asInt()).as("Bob's and Cy's merged, Ada's indexed one apart")
                .isEqualTo(2);
        assertThat(first.json().path("graph_commit_id").isTextual()).isTrue();
        assertThat(first.json().path("indexed").findValuesAsText("table_key")).contains("node:Person");

        HttpFixture.Reply second = http.postJson("/graphs/social/optimize", Json.object());
        assertThat(second.json().path("graph_commit_id").isNull()).as(second.toString()).isTrue();
        assertThat(second.json().path("indexed").size()).isZero();
        HttpFixture.Reply onMain = http.postJson("/graphs/social/optimize", Json.object().put("branch", "main"));
        assertThat(onMain.json().path("graph_commit_id").isNull()).as(onMain.toString()).isTrue();
        HttpFixture.Reply noBranch = http.postJson("/graphs/social/optimize", Json.object().put("branch", "nope"));
        assertThat(noBranch.status()).as(noBranch.toString()).isEqualTo(404);
        HttpFixture.Reply unknown = http.postJson("/graphs/social/optimize", Json.object().put("branches", "main"));
        assertThat(unknown.status()).as(unknown.toString()).isEqualTo(400);
        assertThat(unknown.body()).contains("branches");

        HttpFixture.Reply repair = http.postJson("/graphs/social/repair", Json.object().put("confirm", true));
        assertThat(repair.status()).as(repair.toString()).isEqualTo(200);
        assertThat(repair.json().path("drift").size()).isZero();
        HttpFixture.Reply forceAlone = http.postJson("/graphs/social/repair", Json.object().put("force", true));
        assertThat(forceAlone.status()).isEqualTo(400);
        HttpFixture.Reply notABoolean = http.postJson("/graphs/social/repair", Json.object().put("confirm", "yes"));
        assertThat(notABoolean.status()).isEqualTo(400);
    }
}

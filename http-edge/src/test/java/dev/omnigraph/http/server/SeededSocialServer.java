package dev.omnigraph.http.server;

import static dev.omnigraph.http.testing.HttpFixture.PEOPLE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.wire.Json;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** Route tests on a served graph {@code social} seeded with {@link HttpFixture#PEOPLE} over real HTTP. */
abstract class SeededSocialServer {
    static final String G = "/graphs/social";
    @TempDir
    Path dir;
    HttpFixture http;
    /** The graph commit id of the seeding load: main's head until a test writes. */
    String seeded;

    @BeforeEach
    void startSeededServer() {
        http = new HttpFixture();
        http.init(dir.resolve("social"));
        http.start(dir);
        HttpFixture.Reply reply = http.postJson(G + "/load", Json.object().put("data", PEOPLE).put("mode", "append"));
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        seeded = reply.json().path("commit").path("graph_commit_id").asText();
    }

    @AfterEach
    void stopServer() {
        http.close();
    }
}

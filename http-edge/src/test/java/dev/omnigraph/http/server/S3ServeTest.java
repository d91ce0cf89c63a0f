package dev.omnigraph.http.server;

import dev.omnigraph.engine.internal.HandleInternals;
import static dev.omnigraph.http.testing.HttpFixture.PEOPLE;
import static dev.omnigraph.http.testing.HttpFixture.QUERIES;
import static dev.omnigraph.http.testing.HttpFixture.SCHEMA;
import static dev.omnigraph.http.testing.HttpFixture.mutation;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.StoredQueries;
import dev.omnigraph.storage.lease.WriterLease;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.storage.testing.S3TestServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code serve} of an {@code s3://} graph root over real HTTP: reads, writes, stored queries kept under the root's
 * prefix, and the server holding the writer lease while it runs and giving it back when it shuts down.
 */
class S3ServeTest {
    S3TestServer s3;
    HttpFixture http;
    GraphRoot.S3 root;

    @BeforeEach
    void setUp() throws Exception {
        s3 = S3TestServer.start();
        http = new HttpFixture();
        root = s3.root("served", "graphs/social");
        Omnigraph seeded = Omnigraph.init(http.services, root, SCHEMA).block(Duration.ofSeconds(120));
        try {
            StoredQueries.add(HandleInternals.of(seeded).objectStore(), QUERIES, seeded.catalog()).block();
        } finally {
            seeded.closeAsync().block();
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        http.close();
        s3.close();
    }

    @Test
    void anS3GraphIsServedReadAndWrittenOverHttp() {
        http.start(OmnigraphServer.Config.of(root));
        assertThat(http.server.singleGraphId()).contains("social");
        assertThat(lease().path("released").asBoolean()).as("the server holds the lease").isFalse();

        Reply loaded = http.postJson("/load", Json.object().put("data", PEOPLE).put("mode", "append"));
        assertThat(loaded.status()).as(loaded.toString()).isEqualTo(200);
        Reply added = http.postJson("/mutate", mutation("addPerson", "{\"name\":\"Cy\",\"age\":29}"));
        assertThat(added.status()).as(added.toString()).isEqualTo(200);

        Reply people = http.postJson("/queries/people", "{}");
        assertThat(people.status()).as(people.toString()).isEqualTo(200);
        assertThat(people.json().path("row_count").asInt()).isEqualTo(3);
        assertThat(http.get("/queries").json().path("queries")).hasSize(4);
        Reply stored = http.postJson("/queries/setAge", "{\"params\":{\"name\":\"Cy\",\"age\":30}}");
        assertThat(stored.status()).as(stored.toString()).isEqualTo(200);

        Reply graphs = http.get("/graphs");
        assertThat(graphs.json().path("graphs").get(0).path("uri").asText()).isEqualTo("s3://served/graphs/social");
        Reply snapshot = http.get("/snapshot");
        assertThat(snapshot.status()).as(snapshot.toString()).isEqualTo(200);
        assertThat(http.get("/commits").json().path("commits")).hasSize(4);

        http.server.shutdown().block(Duration.ofSeconds(60));
        assertThat(lease().path("released").asBoolean()).as("given back at shutdown").isTrue();
    }

    private com.fasterxml.jackson.databind.JsonNode lease() {
        byte[] bytes = http.services.objectStore(root).get(WriterLease.KEY).block().orElseThrow();
        return Json.parse(new String(bytes, StandardCharsets.UTF_8), WriterLease.KEY);
    }
}

package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.storage.testing.S3TestServer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/** A graph whose root is an S3 prefix on a real S3-compatible server (S3Proxy on loopback, in this JVM). */
class S3GraphTest {
    static final String QUERIES = """
            query addPerson($name: String, $age: I32) { insert Person { name: $name, age: $age } }
            query setAge($name: String, $age: I32) { update Person set { age: $age } where name = $name }
            query people() { match { $p: Person } return { $p.name, $p.age } order { $p.name } }
            query friendsOf($name: String) {
                match { $a: Person { name: $name } $a knows $b } return { $b.name } order { $b.name }
            }
            """;
    static final Duration WAIT = Duration.ofSeconds(120);

    static S3TestServer server;
    StorageServices services;

    @BeforeAll
    static void startServer() throws Exception {
        server = S3TestServer.start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
    }

    @BeforeEach
    void setUp() {
        services = EngineFixture.services();
    }

    @AfterEach
    void tearDown() {
        EngineFixture.close(services);
    }

    private static Flux<ByteBuffer> ndjson(String... lines) {
        return Flux.fromArray(lines).map(line -> ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8)));
    }

    private static List<List<Object>> rows(QueryOutput output) {
        return output.rows().collectList().block(WAIT);
    }

    @Test
    void initLoadMutateQueryExportAndTimeTravelOnS3() {
        GraphRoot.S3 root = server.root("graphs", "social/one");
        Omnigraph graph = Omnigraph.init(services, root, EngineFixture.SOCIAL).block(WAIT);
        try {
            assertThat(graph.location()).isEqualTo(root);
            assertThat(services.objectStore(root).list("").block(WAIT)).as("keys after init")
                    // Lance 7 names a version's manifest u64::MAX - version: version 1 is u64::MAX - 1.
                    .contains("_schema.pg", "__manifest/_versions/" + Long.toUnsignedString(-2L) + ".manifest")
                    .doesNotContain(Omnigraph.INIT_CLAIM);
            graph.load("main", LoadMode.MERGE, ndjson(
                    "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":36}}",
                    "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\",\"age\":41}}",
                    "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Bob\"}"), LoadOptions.DEFAULT).block(WAIT);
            String beforeMutation = graph.snapshot(ReadTarget.main()).block(WAIT).graphCommitId().orElseThrow();
            graph.mutate("main", QUERIES, "setAge", Map.of("name", "Ada", "age", 37), WriteOptions.DEFAULT).block(WAIT);
            graph.mutate("main", QUERIES, "addPerson", Map.of("name", "Cy", "age", 3), WriteOptions.DEFAULT).block(WAIT);

            assertThat(rows(graph.query(ReadTarget.main(), QUERIES, "people", Map.of()).block(WAIT)))
                    .containsExactly(List.of("Ada", 37), List.of("Bob", 41), List.of("Cy", 3));
            assertThat(rows(graph.query(ReadTarget.main(), QUERIES, "friendsOf", Map.of("name", "Ada")).block(WAIT)))
                    .containsExactly(List.of("Bob"));
            assertThat(rows(graph.query(ReadTarget.commit(beforeMutation), QUERIES, "people", Map.of()).block(WAIT)))
                    .containsExactly(List.of("Ada", 36), List.of("Bob", 41));
            assertThat(graph.export(ReadTarget.main(), Set.of()).collectList().block(WAIT))
                    .hasSize(4).anySatisfy(line -> assertThat(line).contains("\"Knows\"").contains("Ada"));
            assertThatThrownBy(graph::root).hasMessageContaining("no local directory");
        } finally {
            graph.close();
        }

        // Another handle sees the same graph; everything lives under the prefix, nothing on local disk.
        Omnigraph reader = Omnigraph.open(services, server.root("graphs", "social/one"), OpenMode.READ_ONLY).block(WAIT);
        try {
            assertThat(rows(reader.query(ReadTarget.main(), QUERIES, "people", Map.of()).block(WAIT))).hasSize(3);
            assertThat(reader.commits("main").collectList().block(WAIT)).hasSizeGreaterThanOrEqualTo(4);
        } finally {
            reader.close();
        }
        Omnigraph writer = Omnigraph.open(services, root, OpenMode.READ_WRITE).block(WAIT);
        writer.close();
        assertThatThrownBy(() -> Omnigraph.init(services, root, EngineFixture.SOCIAL).block(WAIT))
                .isInstanceOf(Conflict.class).hasMessageContaining("already exists");
    }

    @Test
    void anEmptyPrefixIsNoGraph() {
        assertThatThrownBy(() -> Omnigraph.open(services, server.root("graphs", "nothing/here"), OpenMode.READ_ONLY)
                .block(WAIT)).isInstanceOf(NotFound.class).hasMessageContaining("s3://graphs/nothing/here");
    }

    @Test
    void anEndpointWithoutConditionalWritesIsRefusedAtInitAndReadWriteOpen() throws Exception {
        try (S3TestServer careless = S3TestServer.start(S3TestServer.Conditions.IGNORED)) {
            GraphRoot.S3 root = careless.root("careless", "g");
            assertThatThrownBy(() -> Omnigraph.init(services, root, EngineFixture.SOCIAL).block(WAIT))
                    .isInstanceOf(StorageFault.class).hasMessageContaining("does not honour conditional writes");
            assertThatThrownBy(() -> Omnigraph.open(services, root, OpenMode.READ_WRITE).block(WAIT))
                    .isInstanceOf(StorageFault.class).hasMessageContaining("does not honour conditional writes");
            // Refused before writing anything but the probe (which it removes): no graph file was written.
            assertThat(new dev.omnigraph.storage.root.S3ObjectStore(root, services.scheduler()).list("").block(WAIT))
                    .isEmpty();
        }
    }
}

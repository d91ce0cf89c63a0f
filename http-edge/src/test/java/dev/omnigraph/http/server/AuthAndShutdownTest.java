package dev.omnigraph.http.server;

import dev.omnigraph.engine.internal.HandleInternals;
import static dev.omnigraph.http.testing.HttpFixture.mutation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.testing.RawHttp;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.Failpoints;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/** Bearer auth on and off, the loopback default, and a graceful shutdown with a write in flight. */
class AuthAndShutdownTest extends EmptyGraphServer {
    @Test
    void tokensMapToTheActorRecordedOnCommits() throws Exception {
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, "# token=actor\nsecret-ada-123=act-ada\nsecret-bob-456=act-bob\n");
        http.start(OmnigraphServer.Config.of(dir).withTokens(BearerTokens.fromFile(tokens)));
        assertThat(http.server.authEnabled()).isTrue();

        assertThat(http.get("/healthz").status()).as("health is open").isEqualTo(200);
        assertThat(http.get("/openapi.json").json().path("security").isArray()).isTrue();

        Reply missing = http.get("/graphs");
        assertThat(missing.status()).isEqualTo(401);
        assertThat(missing.json().path("code").asText()).isEqualTo("unauthorized");
        assertThat(missing.headers().get("WWW-Authenticate")).isEqualTo("Bearer");
        for (String wrong : new String[] {"Bearer secret-ada-124", "Bearer secret-ada-12", "Basic secret-ada-123", "secret-ada-123"}) {
            Reply r = http.send(HttpMethod.GET, "/graphs/g/snapshot", Map.of("Authorization", wrong), Mono.empty());
            assertThat(r.status()).as(wrong).isEqualTo(401);
        }
        // Two Authorization headers: a proxy reading the last and the server the first would disagree on the actor.
        try (RawHttp c = RawHttp.connect(http.server.host(), http.server.port(), Duration.ofSeconds(30))) {
            RawHttp.Response twice = c.exchange("GET /graphs HTTP/1.1\r\nHost: localhost\r\n"
                    + "Authorization: Bearer secret-ada-123\r\nAuthorization: Bearer secret-bob-456\r\n\r\n");
            assertThat(twice.status()).isEqualTo(401);
            assertThat(Json.parse(twice.body(), "response").path("error").asText()).contains("one Authorization header");
        }
        Reply write = http.send(HttpMethod.POST, "/graphs/g/mutate",
                Map.of("Authorization", "Bearer secret-bob-456", "Content-Type", "application/json"),
                HttpFixture.text(Json.text(mutation("addPerson", "{\"name\":\"Ada\"}"))));
        assertThat(write.status()).as(write.toString()).isEqualTo(200);
        assertThat(write.json().path("actor_id").asText()).isEqualTo("act-bob");
        assertThat(write.json().path("commit").path("actor_id").asText()).isEqualTo("act-bob");

        Reply commits = http.send(HttpMethod.GET, "/graphs/g/commits", Map.of("Authorization", "bearer secret-ada-123"), Mono.empty());
        assertThat(commits.status()).isEqualTo(200);
        assertThat(commits.json().path("commits").get(0).path("actor_id").asText()).isEqualTo("act-bob");
    }

    @Test
    void withoutTokensTheServerIsOpenButBindsLoopbackOnly() {
        http.start(OmnigraphServer.Config.of(dir).withHost("0.0.0.0"));
        assertThat(http.server.authEnabled()).isFalse();
        assertThat(http.server.host()).isEqualTo(OmnigraphServer.LOOPBACK);
        assertThat(http.get("/graphs").status()).isEqualTo(200);
        Reply write = http.postJson("/graphs/g/mutate", mutation("addPerson", "{\"name\":\"Ada\"}"));
        assertThat(write.json().path("actor_id").isNull()).isTrue();
        assertThat(write.json().path("commit").path("actor_id").isNull()).isTrue();
    }

    @Test
    void shutdownLetsTheInFlightWriteFinishThenRefusesConnections() {
        http.start(dir);
        Omnigraph graph = http.server.graph("g").block();
        Failpoints.Parked parked = HandleInternals.of(graph).failpoints().park("mutation.after_prepare");
        Mono<Reply> write = http.sendAsync(HttpMethod.POST, "/graphs/g/mutate", Map.of("Content-Type", "application/json"),
                HttpFixture.text(Json.text(mutation("addPerson", "{\"name\":\"Slow\"}")))).cache();
        write.subscribe();
        parked.reached().block(); // the request was counted on arrival and its write is now parked
        assertThat(http.server.inFlight()).isEqualTo(1);

        String url = http.server.baseUrl();
        AtomicBoolean terminated = new AtomicBoolean();
        Mono<Void> shutdown = http.server.shutdown().doOnTerminate(() -> terminated.set(true)).cache();
        shutdown.subscribe(); // draining starts at subscription
        // The parked write keeps one request in flight, so the shutdown cannot have finished.
        assertThat(terminated).isFalse();
        assertThat(http.server.inFlight()).isEqualTo(1);
        parked.release();
        shutdown.block(Duration.ofSeconds(30));

        Reply reply = write.block(Duration.ofSeconds(30));
        assertThat(reply.status()).as(reply.toString()).isEqualTo(200);
        String id = reply.json().path("commit").path("graph_commit_id").asText();
        HandleInternals.of(graph).failpoints().disarm("mutation.after_prepare");
        assertThat(graph.commits("main").blockFirst().id()).isEqualTo(id);
        assertThat(http.server.inFlight()).isZero();

        assertThatThrownBy(() -> HttpClient.newConnection().baseUrl(url).get().uri("/healthz")
                .responseSingle((r, b) -> Mono.just(r.status().code())).block(Duration.ofSeconds(10)))
                .as("no longer accepting").isInstanceOf(Exception.class);
    }
}

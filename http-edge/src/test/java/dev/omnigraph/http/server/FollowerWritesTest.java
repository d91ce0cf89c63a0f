package dev.omnigraph.http.server;

import static dev.omnigraph.http.testing.HttpFixture.mutation;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Writes sent to a follower on a shared {@code s3://} root, over real HTTP between two servers: forwarded to the
 * lease holder's advertised URL (body streamed, Idempotency-Key honoured across the hop, the holder's answer
 * unchanged), redirected with 307, refused with 503 as before, never forwarded twice, and refused with 503 when
 * the advertised holder cannot be reached.
 */
class FollowerWritesTest {
    private SharedRootServers servers;

    @AfterEach
    void tearDown() throws Exception {
        if (servers != null) servers.close();
    }

    @Test
    void aFollowerForwardsEveryKindOfWriteToTheHolderAndAnswersItsAnswer() throws Exception {
        servers = new SharedRootServers("forward").start(ScaleOut.DEFAULT);
        HttpFixture holder = servers.holder;
        HttpFixture follower = servers.follower;
        assertThat(holder.server.graph("forward").block().mode()).isEqualTo(dev.omnigraph.engine.OpenMode.READ_WRITE);
        assertThat(follower.server.graph("forward").block().mode()).isEqualTo(dev.omnigraph.engine.OpenMode.READ_ONLY);

        String body = Json.text(mutation("addPerson", "{\"name\":\"Cy\",\"age\":29}"));
        Map<String, String> keyed = Map.of("Content-Type", "application/json", WriteRoutes.IDEMPOTENCY_KEY, "cy-1");
        Reply viaFollower = follower.send(HttpMethod.POST, "/mutate", keyed, HttpFixture.text(body));
        assertThat(viaFollower.status()).as(viaFollower.toString()).isEqualTo(200);
        String commit = viaFollower.json().path("commit").path("graph_commit_id").asText();
        assertThat(commit).isNotEmpty();
        assertThat(viaFollower.headers().get(WriteRoutes.IDEMPOTENT_REPLAYED)).isNull();

        // The same key sent straight to the holder is the same write: replayed, the same commit, nothing new.
        Reply again = holder.send(HttpMethod.POST, "/mutate", keyed, HttpFixture.text(body));
        assertThat(again.status()).as(again.toString()).isEqualTo(200);
        assertThat(again.headers().get(WriteRoutes.IDEMPOTENT_REPLAYED)).isEqualTo("true");
        assertThat(again.json().path("commit").path("graph_commit_id").asText()).isEqualTo(commit);
        // ... and through the follower once more.
        Reply replayed = follower.send(HttpMethod.POST, "/mutate", keyed, HttpFixture.text(body));
        assertThat(replayed.headers().get(WriteRoutes.IDEMPOTENT_REPLAYED)).isEqualTo("true");
        assertThat(replayed.json().path("commit").path("graph_commit_id").asText()).isEqualTo(commit);

        // A raw NDJSON body, chunked, is streamed through; a branch is created and a merge applied via the follower.
        byte[] ndjson = "{\"type\":\"Person\",\"data\":{\"name\":\"Dee\",\"age\":50}}\n".getBytes(StandardCharsets.UTF_8);
        Reply loaded = follower.send(HttpMethod.POST, "/load/ndjson?mode=append",
                Map.of("Content-Type", "application/x-ndjson"), HttpFixture.chunks(ndjson, 7));
        assertThat(loaded.status()).as(loaded.toString()).isEqualTo(200);
        Reply branched = follower.postJson("/branches", "{\"name\":\"side\"}");
        assertThat(branched.status()).as(branched.toString()).isIn(200, 201);
        Reply sideWrite = follower.postJson("/mutate", Json.text(((com.fasterxml.jackson.databind.node.ObjectNode) mutation("addPerson", "{\"name\":\"Eve\",\"age\":3}"))
                .put("branch", "side")));
        assertThat(sideWrite.status()).as(sideWrite.toString()).isEqualTo(200);
        Reply merged = follower.postJson("/branches/merge", "{\"source\":\"side\",\"target\":\"main\"}");
        assertThat(merged.status()).as(merged.toString()).isEqualTo(200);

        // A refusal by the holder comes back unchanged: a bad request stays a 400 with the holder's body.
        Reply bad = follower.postJson("/mutate", "{}");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().path("code").asText()).isEqualTo("bad_request");

        for (HttpFixture server : new HttpFixture[] {holder, follower}) {
            Reply people = server.postJson("/queries/people", "{}");
            assertThat(people.json().path("row_count").asInt()).as(people.toString()).isEqualTo(3);
        }
        String metrics = follower.get("/metrics").body();
        assertThat(metricValue(metrics, "omnigraph_http_follower_writes_total{outcome=\"forwarded\"")).isEqualTo(7.0);
        assertThat(metricValue(holder.get("/metrics").body(),
                "omnigraph_http_follower_writes_total{outcome=\"forwarded\"")).isEqualTo(0.0);
    }

    @Test
    void authorizationTravelsWithTheForwardedWriteAndTheHolderChecksIt() throws Exception {
        servers = new SharedRootServers("auth");
        BearerTokens tokens = BearerTokens.parse("s3cret-token=alice\n", "test");
        servers.holder.start(servers.config(SharedRootServers.freePort(), 1, ScaleOut.DEFAULT).withTokens(tokens));
        servers.follower.start(servers.config(SharedRootServers.freePort(), 2, ScaleOut.DEFAULT).withTokens(tokens));
        String body = Json.text(mutation("addPerson", "{\"name\":\"Cy\",\"age\":29}"));
        Reply written = servers.follower.send(HttpMethod.POST, "/mutate",
                Map.of("Content-Type", "application/json", "Authorization", "Bearer s3cret-token"), HttpFixture.text(body));
        assertThat(written.status()).as(written.toString()).isEqualTo(200);
        assertThat(written.json().path("actor_id").asText()).isEqualTo("alice");
        assertThat(written.json().path("commit").path("actor_id").asText()).isEqualTo("alice");
    }

    @Test
    void underAPolicyTheFollowerDecidesFirstAndForwardsTheBodyItReadForTheDecision(@org.junit.jupiter.api.io.TempDir
                                                                                   java.nio.file.Path dir) throws Exception {
        servers = new SharedRootServers("policy");
        BearerTokens tokens = BearerTokens.parse("agent-token=act-agent\nstranger-token=act-stranger\n", "test");
        java.nio.file.Path bundle = java.nio.file.Files.writeString(dir.resolve("policy.yaml"), """
                version: 1
                groups:
                  agents: [act-agent]
                rules:
                  - id: agents-write
                    allow: { actors: { group: agents }, actions: [read, change], branch_scope: any }
                  - id: agents-invoke
                    allow: { actors: { group: agents }, actions: [invoke_query] }
                """);
        ServerPolicy policy = ServerPolicy.load(java.util.Optional.of(bundle), Map.of());
        servers.holder.start(servers.config(SharedRootServers.freePort(), 1, ScaleOut.DEFAULT).withTokens(tokens), policy);
        servers.follower.start(servers.config(SharedRootServers.freePort(), 2, ScaleOut.DEFAULT).withTokens(tokens), policy);
        String body = Json.text(mutation("addPerson", "{\"name\":\"Dee\",\"age\":41}"));

        Reply denied = servers.follower.send(HttpMethod.POST, "/mutate",
                Map.of("Content-Type", "application/json", "Authorization", "Bearer stranger-token"), HttpFixture.text(body));
        assertThat(denied.status()).as(denied.toString()).isEqualTo(403);

        // The gate read this JSON body to find the branch; the forward must carry it, whole, to the holder.
        Reply written = servers.follower.send(HttpMethod.POST, "/mutate",
                Map.of("Content-Type", "application/json", "Authorization", "Bearer agent-token"), HttpFixture.text(body));
        assertThat(written.status()).as(written.toString()).isEqualTo(200);
        assertThat(written.json().path("commit").path("actor_id").asText()).isEqualTo("act-agent");
        Reply people = servers.holder.send(HttpMethod.POST, "/queries/people",
                Map.of("Content-Type", "application/json", "Authorization", "Bearer agent-token"), HttpFixture.text("{}"));
        assertThat(people.json().path("row_count").asInt()).as(people.toString()).isEqualTo(1);
    }

    @Test
    void redirectModeAnswers307WithTheHoldersLocation() throws Exception {
        servers = new SharedRootServers("redirect")
                .start(ScaleOut.DEFAULT.withFollowerWrites(ScaleOut.FollowerWrites.REDIRECT));
        Reply moved = servers.follower.postJson("/mutate?x=1", Json.text(mutation("addPerson", "{\"name\":\"Cy\"}")));
        assertThat(moved.status()).as(moved.toString()).isEqualTo(307);
        assertThat(moved.headers().get("Location")).isEqualTo(servers.holder.server.baseUrl() + "/mutate?x=1");
        // Reads stay where they are.
        assertThat(servers.follower.postJson("/queries/people", "{}").status()).isEqualTo(200);
    }

    @Test
    void refuseModeAndAForwardedWriteAtAFollowerAnswer503WithoutForwarding() throws Exception {
        servers = new SharedRootServers("refuse")
                .start(ScaleOut.DEFAULT.withFollowerWrites(ScaleOut.FollowerWrites.REFUSE));
        String body = Json.text(mutation("addPerson", "{\"name\":\"Cy\"}"));
        Reply refused = servers.follower.postJson("/mutate", body);
        assertThat(refused.status()).as(refused.toString()).isEqualTo(503);
        assertThat(refused.headers().get("Retry-After")).isEqualTo("1");
        assertThat(refused.json().has("lease_lost")).isTrue();
        servers.close();

        // A forward-mode follower that receives a write already forwarded once refuses it: no second hop.
        servers = new SharedRootServers("loop").start(ScaleOut.DEFAULT);
        Reply looped = servers.follower.send(HttpMethod.POST, "/mutate", Map.of("Content-Type", "application/json",
                WriteForwarder.FORWARDED, "http://127.0.0.1:1"), HttpFixture.text(body));
        assertThat(looped.status()).as(looped.toString()).isEqualTo(503);
        assertThat(looped.json().has("lease_lost")).isTrue();
        assertThat(metricValue(servers.follower.get("/metrics").body(),
                "omnigraph_http_follower_writes_total{outcome=\"forwarded\"")).isEqualTo(0.0);
        assertThat(servers.holder.postJson("/queries/people", "{}").json().path("row_count").asInt()).isZero();
    }

    @Test
    void aHolderAdvertisingAnUnreachableUrlLeavesTheFollowerAnswering503() throws Exception {
        servers = new SharedRootServers("unreachable");
        int nobody = SharedRootServers.freePort();
        // The holder advertises a port where nothing listens.
        servers.holder.start(OmnigraphServer.Config.of(servers.root).withScaleOut(ScaleOut.DEFAULT
                .advertising(SharedRootServers.url(nobody)).withLease(SharedRootServers.lease(1))));
        servers.follower.start(servers.config(SharedRootServers.freePort(), 2, ScaleOut.DEFAULT));
        Reply refused = servers.follower.postJson("/mutate", Json.text(mutation("addPerson", "{\"name\":\"Cy\"}")));
        assertThat(refused.status()).as(refused.toString()).isEqualTo(503);
        assertThat(refused.headers().get("Retry-After")).isEqualTo("1");
        assertThat(metricValue(servers.follower.get("/metrics").body(),
                "omnigraph_http_follower_writes_total{outcome=\"unreachable\"")).isEqualTo(1.0);
    }

    /** The value of the first Prometheus sample whose line starts with {@code prefix}. */
    static double metricValue(String scrape, String prefix) {
        return scrape.lines().filter(line -> line.startsWith(prefix)).findFirst()
                .map(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .orElseThrow(() -> new AssertionError("no sample " + prefix + " in\n" + scrape));
    }
}

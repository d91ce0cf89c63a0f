package dev.omnigraph.http.server;

import static dev.omnigraph.http.testing.HttpFixture.mutation;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import io.netty.handler.codec.http.HttpMethod;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import reactor.core.publisher.Flux;

/**
 * A follower's bounded staleness and read-your-writes through any server, over real HTTP between two servers on
 * one {@code s3://} root: the follower's periodic version check picks a new head up with no read at all and
 * reports it in {@code /healthz} and as gauges; a read naming the commit a write answered is served once that
 * commit is visible, and answered 504 {@code min_commit} when it never becomes visible within the timeout.
 * The tests share one pair of servers (each writes names of its own).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FollowerFreshnessTest {
    private static final ScaleOut FOLLOWER = ScaleOut.DEFAULT.withMaxStaleness(Duration.ofMillis(200))
            .withMinCommitTimeout(Duration.ofSeconds(3));
    private SharedRootServers servers;

    @BeforeAll
    void setUp() throws Exception {
        servers = new SharedRootServers("fresh").start(FOLLOWER);
    }

    @AfterAll
    void tearDown() throws Exception {
        servers.close();
    }

    @Test
    void theFollowerPicksUpANewHeadWithoutAnyReadAndReportsItsBound() {
        Reply written = servers.holder.postJson("/mutate", mutation("addPerson", "{\"name\":\"Cy\",\"age\":29}"));
        assertThat(written.status()).as(written.toString()).isEqualTo(200);
        String commit = written.json().path("commit").path("graph_commit_id").asText();

        // Only /healthz is asked (it reads nothing): the periodic check alone moves the follower's view to the head.
        JsonNode graph = Flux.interval(Duration.ZERO, Duration.ofMillis(50))
                .onBackpressureDrop()
                .concatMap(tick -> servers.follower.sendAsync(HttpMethod.GET, "/healthz", Map.of(),
                        reactor.core.publisher.Mono.empty()), 1)
                .map(FollowerFreshnessTest::followerView)
                .filter(view -> commit.equals(view.path("main_head_commit_id").asText(null)))
                .blockFirst(Duration.ofSeconds(60));
        assertThat(graph.path("graph_id").asText()).isEqualTo("fresh");
        assertThat(graph.path("role").asText()).isEqualTo("follower");
        assertThat(graph.path("main_manifest_version").asLong()).isEqualTo(written.json().path("commit")
                .path("graph_manifest_version").asLong());
        JsonNode freshness = servers.follower.get("/healthz").json().path("freshness");
        assertThat(freshness.path("max_staleness_ms").asLong()).isEqualTo(200);
        assertThat(freshness.path("min_commit_timeout_ms").asLong()).isEqualTo(3000);
        assertThat(freshness.path("follower_writes").asText()).isEqualTo("forward");
        assertThat(freshness.path("advertise_url").asText()).isEqualTo(servers.follower.server.baseUrl());

        String metrics = servers.follower.get("/metrics").body();
        assertThat(FollowerWritesTest.metricValue(metrics, "omnigraph_follower_staleness_bound_seconds")).isEqualTo(0.2);
        assertThat(metrics).contains("omnigraph_follower_view_age_seconds{graph=\"fresh\"}");
        // The holder's view costs nothing and says so.
        JsonNode holderView = servers.holder.get("/healthz").json().path("freshness");
        assertThat(holderView.path("max_staleness_ms").asLong()).isEqualTo(1000);
    }

    @Test
    void aReadNamingTheCommitAWriteAnsweredIsServedOnTheFollowerWithThatWrite() {
        Reply written = servers.holder.postJson("/mutate", mutation("addPerson", "{\"name\":\"Dee\",\"age\":29}"));
        String commit = written.json().path("commit").path("graph_commit_id").asText();
        Reply people = servers.follower.send(HttpMethod.POST, "/queries/people",
                Map.of("Content-Type", "application/json", Freshness.MIN_COMMIT, commit), HttpFixture.text("{}"));
        assertThat(people.status()).as(people.toString()).isEqualTo(200);
        assertThat(people.body()).contains("\"Dee\"");

        // The parameter form, on a GET, and for a commit on another branch (written through the follower).
        Reply branched = servers.follower.postJson("/branches", "{\"name\":\"side\"}");
        assertThat(branched.status()).as(branched.toString()).isIn(200, 201);
        ObjectNode sideWrite = (ObjectNode) mutation("addPerson", "{\"name\":\"Eve\",\"age\":3}");
        Reply side = servers.follower.postJson("/mutate", sideWrite.put("branch", "side"));
        assertThat(side.status()).as(side.toString()).isEqualTo(200);
        String sideCommit = side.json().path("commit").path("graph_commit_id").asText();
        Reply snapshot = servers.follower.get("/snapshot?branch=side&min_commit=" + sideCommit);
        assertThat(snapshot.status()).as(snapshot.toString()).isEqualTo(200);
        assertThat(snapshot.json().path("graph_commit_id").asText()).isEqualTo(sideCommit);
    }

    @Test
    void aCommitThatNeverBecomesVisibleIsA504AndAMalformedOneA400() {
        Reply waited = servers.follower.get("/snapshot?min_commit=01ZZZZZZZZZZZZZZZZZZZZZZZZ");
        assertThat(waited.status()).as(waited.toString()).isEqualTo(504);
        assertThat(waited.json().path("min_commit").path("graph_commit_id").asText()).isEqualTo("01ZZZZZZZZZZZZZZZZZZZZZZZZ");
        assertThat(waited.json().path("min_commit").path("timeout_ms").asLong()).isEqualTo(3000);

        Reply malformed = servers.follower.send(HttpMethod.GET, "/snapshot", Map.of(Freshness.MIN_COMMIT, "not a commit"),
                reactor.core.publisher.Mono.empty());
        assertThat(malformed.status()).as(malformed.toString()).isEqualTo(400);
        Reply disagreeing = servers.follower.send(HttpMethod.GET, "/snapshot?min_commit=a1", Map.of(Freshness.MIN_COMMIT,
                "b2"), reactor.core.publisher.Mono.empty());
        assertThat(disagreeing.status()).as(disagreeing.toString()).isEqualTo(400);
    }

    private static JsonNode followerView(Reply health) {
        JsonNode graphs = health.json().path("freshness").path("graphs");
        return graphs.isEmpty() ? Json.object() : graphs.get(0);
    }
}

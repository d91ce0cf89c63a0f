package dev.omnigraph.http.server;

import static dev.omnigraph.http.testing.HttpFixture.mutation;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import io.netty.handler.codec.http.HttpMethod;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hawkular.agent.prometheus.text.TextPrometheusMetricDataParser;
import org.hawkular.agent.prometheus.types.Counter;
import org.hawkular.agent.prometheus.types.Metric;
import org.hawkular.agent.prometheus.types.MetricFamily;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * {@code GET /metrics} answers the Prometheus text format, read back with a Prometheus text parser (Hawkular's
 * scraper library, not a regex): engine meters of the writes served, JVM and process meters, and Reactor Netty's
 * server meters tagged by route template. It needs a token like every non-open route; {@code --metrics-bind}
 * serves it open on a second address.
 */
class MetricsRouteTest extends EmptyGraphServer {
    static final Map<String, String> ADA = Map.of("Authorization", "Bearer secret-ada-123");

    static Map<String, MetricFamily> parse(String text) throws IOException {
        Map<String, MetricFamily> families = new LinkedHashMap<>();
        TextPrometheusMetricDataParser parser =
                new TextPrometheusMetricDataParser(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
        for (MetricFamily family = parser.parse(); family != null; family = parser.parse()) {
            families.put(family.getName(), family);
        }
        return families;
    }

    @Test
    void metricsNeedATokenAndParseAsPrometheusText() throws Exception {
        Path tokens = dir.resolve("tokens");
        Files.writeString(tokens, "secret-ada-123=act-ada\n");
        http.start(OmnigraphServer.Config.of(dir).withTokens(BearerTokens.fromFile(tokens))
                .withOpenMetrics(new InetSocketAddress(OmnigraphServer.LOOPBACK, 0)));

        assertThat(http.get("/metrics").status()).as("behind the bearer check").isEqualTo(401);
        Reply write = http.send(HttpMethod.POST, "/graphs/g/mutate",
                Map.of("Authorization", "Bearer secret-ada-123", "Content-Type", "application/json"),
                HttpFixture.text(Json.text(mutation("addPerson", "{\"name\":\"Ada\"}"))));
        assertThat(write.status()).as(write.toString()).isEqualTo(200);
        assertThat(http.send(HttpMethod.GET, "/graphs/g/snapshot", ADA, Mono.empty()).status()).isEqualTo(200);

        Reply scraped = http.send(HttpMethod.GET, "/metrics", ADA, Mono.empty());
        assertThat(scraped.status()).isEqualTo(200);
        assertThat(scraped.headers().get("Content-Type")).startsWith("text/plain; version=0.0.4");
        Map<String, MetricFamily> families = parse(scraped.body());

        MetricFamily commits = families.get("omnigraph_write_commits_total");
        assertThat(commits).as(families.keySet().toString()).isNotNull();
        Metric mutations = commits.getMetrics().stream()
                .filter(m -> "mutation".equals(m.getLabels().get("writer"))).findFirst().orElseThrow();
        assertThat(((Counter) mutations).getValue()).isEqualTo(1.0);
        assertThat(families).containsKeys("omnigraph_write_seconds", "omnigraph_write_step_seconds",
                "omnigraph_storage_calls_seconds", "jvm_memory_used_bytes", "process_uptime_seconds");
        // The read caches (issue 35): adjacency, key rows and kept dataset handles, tagged by cache only.
        assertThat(families).containsKeys("omnigraph_cache_gets_total", "omnigraph_cache_size",
                "omnigraph_cache_heap_bytes", "omnigraph_cache_heap_max_bytes", "omnigraph_cache_evictions_total",
                "omnigraph_cache_capacity");
        assertThat(families.get("omnigraph_cache_size").getMetrics()).extracting(m -> m.getLabels().get("cache"))
                .containsExactlyInAnyOrder("topology", "key_rows", "dataset_handles");

        // Reactor Netty's request meters carry the route template, never the raw path (the graph id "g").
        List<String> uris = families.values().stream().filter(f -> f.getName().startsWith("reactor_netty_http_server"))
                .flatMap(f -> f.getMetrics().stream()).map(m -> m.getLabels().get("uri"))
                .filter(java.util.Objects::nonNull).distinct().toList();
        assertThat(uris).contains("/graphs/{graph_id}/mutate", "/graphs/{graph_id}/snapshot")
                .noneMatch(uri -> uri.contains("/g/"));

        // The open listener answers without a token, and only /metrics.
        HttpClient open = HttpClient.create().baseUrl("http://" + OmnigraphServer.LOOPBACK + ":"
                + http.server.openMetricsPort().orElseThrow());
        String openText = open.get().uri("/metrics").responseSingle((response, body) -> {
            assertThat(response.status().code()).isEqualTo(200);
            return body.asString();
        }).block(Duration.ofSeconds(30));
        assertThat(parse(openText)).containsKey("omnigraph_write_commits_total");
        int other = open.get().uri("/graphs").response().map(r -> r.status().code()).block(Duration.ofSeconds(30));
        assertThat(other).isEqualTo(404);
    }
}

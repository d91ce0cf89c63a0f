package dev.omnigraph.http.cli;

import dev.omnigraph.engine.internal.HandleInternals;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.StoredQueries;
import dev.omnigraph.storage.lease.LeaseSettings;
import dev.omnigraph.storage.testing.ChildJvm;
import dev.omnigraph.storage.testing.StorageFixture;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code serve} processes on one graph root with the lease object, over real HTTP: the first holds the writer
 * lease and takes writes; the second follows, serving reads and answering writes 503 {@code lease_lost} with
 * {@code Retry-After}, naming the holder.
 */
class TwoServersTest {
    private static final Pattern SERVING_AT = Pattern.compile(" at (http://\\S+)");
    private static final List<String> LEASE_ENV = List.of(LeaseSettings.ENV_MODE + "=object",
            LeaseSettings.ENV_DURATION + "=PT1H");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).build();

    @Test
    void theLeaseHolderTakesWritesAndTheFollowerServesReadsAndRefusesWritesWithRetryAfter(@TempDir Path dir)
            throws Exception {
        Path root = dir.resolve("graph");
        StorageServices services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
        try {
            Omnigraph seeded = Omnigraph.init(services, root, HttpFixture.SCHEMA).block();
            StoredQueries.add(HandleInternals.of(seeded).objectStore(), HttpFixture.QUERIES, seeded.catalog()).block();
            seeded.closeAsync().block();
        } finally {
            services.tables().close();
        }

        Process holder = serve(dir, "tmp1", root);
        Process follower = null;
        try {
            String holderUrl = servingUrl(holder);
            follower = serve(dir, "tmp2", root);
            String followerUrl = servingUrl(follower);

            String write = HttpFixture.mutation("addPerson", "{\"name\":\"Cy\",\"age\":29}").toString();
            HttpResponse<String> refused = post(followerUrl + "/mutate", write);
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);
            assertThat(refused.headers().firstValue("Retry-After")).contains("1");
            // The reference's closed code set has no lease code, so the detail key names it (as ErrorBodiesTest pins).
            assertThat(Json.parse(refused.body(), "body").has("lease_lost")).as(refused.body()).isTrue();
            assertThat(Json.parse(refused.body(), "body").path("error").asText()).contains("process " + holder.pid());

            HttpResponse<String> written = post(holderUrl + "/mutate", write);
            assertThat(written.statusCode()).as(written.body()).isEqualTo(200);

            for (String url : List.of(holderUrl, followerUrl)) {
                HttpResponse<String> people = post(url + "/queries/people", "{}");
                assertThat(people.statusCode()).as(url + ": " + people.body()).isEqualTo(200);
                assertThat(Json.parse(people.body(), "body").path("row_count").asInt()).as(url).isEqualTo(1);
            }
        } finally {
            holder.destroyForcibly();
            if (follower != null) {
                follower.destroyForcibly();
            }
        }
    }

    private static Process serve(Path dir, String tmp, Path root) throws Exception {
        return ChildJvm.start(OmnigraphCli.class, dir.resolve(tmp),
                List.of("serve", "--graph", root.toString(), "--port", "0"), LEASE_ENV);
    }

    /** The URL from the child's banner (log lines before it are skipped). */
    private static String servingUrl(Process child) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder seen = new StringBuilder();
        String line;
        while ((line = out.readLine()) != null) {
            seen.append(line).append('\n');
            Matcher serving = SERVING_AT.matcher(line);
            if (line.startsWith("omnigraph serving") && serving.find()) {
                return serving.group(1);
            }
        }
        throw new AssertionError("the server ended without its banner:\n" + seen);
    }

    private HttpResponse<String> post(String url, String json) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(120))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}

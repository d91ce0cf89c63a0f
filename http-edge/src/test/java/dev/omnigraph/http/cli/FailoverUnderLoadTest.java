package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.lease.LeaseSettings;
import dev.omnigraph.storage.lease.WriterLease;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.storage.testing.ChildJvm;
import dev.omnigraph.storage.testing.S3TestServer;
import dev.omnigraph.storage.testing.StorageFixture;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * Failover under a steady write load without loss: three {@code serve} processes on one {@code s3://} root of the
 * loopback S3 server (short leases, each advertising its URL so followers forward writes), three client workers
 * writing through all of them with idempotency keys (on a 503 or a connection error the same request, same key,
 * goes to the next server after the {@code Retry-After}), and two {@code kill -9}s of whichever process holds the
 * lease. Asserted are counts, not timings: every key was acknowledged, each acknowledged write is in the graph
 * exactly once, and every key replayed afterwards answers the very commit it was first acknowledged with.
 */
class FailoverUnderLoadTest {
    private static final int WRITES = 45;
    private static final int WORKERS = 3;
    /** Kill the holder once this many writes were acknowledged, then again at the second mark. */
    private static final List<Integer> KILL_AT = List.of(12, 27);
    private static final String TAG = "query tag($a: String, $b: String, $d: Date) "
            + "{ insert Knows { from: $a, to: $b, since: $d } }";
    private static final LocalDate DAY_ZERO = LocalDate.of(2000, 1, 1);

    /** Answers that sent a write on to another server: 503s and connection errors. */
    private final AtomicInteger retries = new AtomicInteger();
    /** When each acknowledgement arrived (nanoTime), to report the write gap after each kill. */
    private final java.util.concurrent.ConcurrentLinkedQueue<Long> ackTimes = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /** One served process: its URL and everything it printed. */
    private record Server(Process process, String url, StringBuffer output) {
    }

    @Test
    void killingTheHolderTwiceUnderLoadLosesAndDuplicatesNoAcknowledgedWrite(@TempDir Path dir) throws Exception {
        try (S3TestServer s3 = S3TestServer.start()) {
            StorageServices services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
            List<Server> servers = new ArrayList<>();
            try {
                GraphRoot.S3 root = s3.root("failover", "graphs/social");
                Omnigraph seeded = Omnigraph.at(root).services(services).init(HttpFixture.SCHEMA).block();
                try {
                    seeded.load("main", LoadMode.APPEND, Flux.just(ByteBuffer.wrap(HttpFixture.PEOPLE
                            .getBytes(StandardCharsets.UTF_8))), LoadOptions.DEFAULT).block();
                } finally {
                    seeded.closeAsync().block(); // released: the first server takes it at once
                }
                List<String> env = new ArrayList<>(s3.environment().entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue()).toList());
                env.add(LeaseSettings.ENV_DURATION + "=PT3S");
                for (int i = 0; i < 3; i++) {
                    int port = freePort();
                    Process child = ChildJvm.start(OmnigraphCli.class, dir.resolve("tmp" + i), List.of("serve",
                            root.uri(), "--port", Integer.toString(port), "--advertise-url", "http://127.0.0.1:" + port,
                            "--max-staleness", "500ms"), env);
                    servers.add(new Server(child, "http://127.0.0.1:" + port, drain(child)));
                }
                for (Server server : servers) awaitBanner(server);

                Map<Integer, String> acknowledged = new ConcurrentHashMap<>();
                Map<Integer, String> secondAnswers = new ConcurrentHashMap<>();
                AtomicInteger acked = new AtomicInteger();
                List<CountDownLatch> marks = KILL_AT.stream().map(n -> new CountDownLatch(1)).toList();
                List<CompletableFuture<Void>> workers = new ArrayList<>();
                java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(WORKERS);
                for (int w = 0; w < WORKERS; w++) {
                    int worker = w;
                    workers.add(CompletableFuture.runAsync(() -> {
                        for (int key = worker; key < WRITES; key += WORKERS) {
                            JsonNode answer = writeUntilAcknowledged(servers, key, key);
                            String commit = answer.path("commit").path("graph_commit_id").asText();
                            if (acknowledged.putIfAbsent(key, commit) != null) secondAnswers.put(key, commit);
                            int done = acked.incrementAndGet();
                            for (int m = 0; m < KILL_AT.size(); m++) {
                                if (done >= KILL_AT.get(m)) marks.get(m).countDown();
                            }
                        }
                    }, pool));
                }
                pool.shutdown();
                List<Long> killed = new ArrayList<>();
                List<Long> killTimes = new ArrayList<>();
                for (CountDownLatch mark : marks) {
                    while (!mark.await(1, TimeUnit.SECONDS)) {
                        // A worker that failed (a write never acknowledged) fails the test now, not at the deadline.
                        workers.stream().filter(CompletableFuture::isCompletedExceptionally).findFirst()
                                .ifPresent(CompletableFuture::join);
                    }
                    long holder = holderPid(services, root);
                    Server victim = servers.stream().filter(s -> s.process().pid() == holder).findFirst()
                            .orElseThrow(() -> new AssertionError("no child holds the lease (pid " + holder + ")"));
                    assertThat(victim.process().isAlive()).isTrue();
                    victim.process().destroyForcibly().waitFor(); // kill -9: no shutdown hook, the lease not given back
                    killTimes.add(System.nanoTime());
                    killed.add(holder);
                }
                CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);

                assertThat(killed).hasSize(2).doesNotHaveDuplicates();
                assertThat(retries.get()).as("the kills made writes go elsewhere").isPositive();
                for (long kill : killTimes) {
                    long next = ackTimes.stream().filter(t -> t > kill).min(Long::compare).orElse(kill);
                    System.out.printf("failover: no write acknowledged for %d ms after a kill -9 of the holder%n",
                            (next - kill) / 1_000_000);
                }
                System.out.printf("failover: %d writes acknowledged, %d answers sent a write elsewhere%n",
                        acknowledged.size(), retries.get());
                assertThat(acknowledged).hasSize(WRITES);
                assertThat(secondAnswers).as("a key acknowledged twice").isEmpty();
                // Every acknowledged write is in the graph exactly once (edges have generated ids: a write
                // applied twice would show as two edges with its date).
                Server survivor = servers.stream().filter(s -> s.process().isAlive()).findFirst().orElseThrow();
                Map<String, Integer> edgesByDate = knowsEdgesByDate(survivor.url());
                for (int key = 0; key < WRITES; key++) {
                    assertThat(edgesByDate.get(DAY_ZERO.plusDays(key).toString())).as("edges of write " + key)
                            .isEqualTo(1);
                }
                assertThat(edgesByDate.values().stream().mapToInt(Integer::intValue).sum())
                        .as("the seeded edge and one per write").isEqualTo(WRITES + 1);
                // Replaying every key, through any server, answers the commit it was first acknowledged with.
                for (int key = 0; key < WRITES; key++) {
                    HttpResponse<String> replay = send(survivor.url(), key);
                    assertThat(replay.statusCode()).as(replay.body()).isEqualTo(200);
                    assertThat(replay.headers().firstValue("Idempotent-Replayed")).contains("true");
                    assertThat(Json.parse(replay.body(), "replay").path("commit").path("graph_commit_id").asText())
                            .as("key " + key).isEqualTo(acknowledged.get(key));
                }
            } catch (Throwable failure) {
                for (Server server : servers) {
                    failure.addSuppressed(new AssertionError("output of " + server.url() + ":\n" + tail(server.output())));
                }
                throw failure;
            } finally {
                for (Server server : servers) server.process().destroyForcibly();
                services.tables().close();
            }
        }
    }

    /**
     * Sends write {@code key} (the same body and Idempotency-Key every time), starting at server {@code first}
     * and moving on to the next server on a 503 or a connection error, after the {@code Retry-After}.
     */
    private JsonNode writeUntilAcknowledged(List<Server> servers, int key, int first) {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        int attempt = 0;
        String last = "";
        while (System.nanoTime() < deadline) {
            Server server = servers.get((first + attempt++) % servers.size());
            try {
                HttpResponse<String> answer = send(server.url(), key);
                if (answer.statusCode() == 200) {
                    ackTimes.add(System.nanoTime());
                    return Json.parse(answer.body(), "answer");
                }
                retries.incrementAndGet();
                last = answer.statusCode() + " " + answer.body();
                if (answer.statusCode() != 503) throw new AssertionError("write " + key + " refused: " + last);
                long wait = answer.headers().firstValue("Retry-After").map(Long::parseLong).orElse(1L);
                CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(wait, TimeUnit.SECONDS)).join();
            } catch (IOException unreachable) {
                retries.incrementAndGet();
                last = unreachable.toString(); // killed, or not up: the next server
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
        throw new AssertionError("write " + key + " was never acknowledged; last answer: " + last);
    }

    private HttpResponse<String> send(String url, int key) throws IOException, InterruptedException {
        String body = Json.text(Json.object().put("query", TAG).put("name", "tag").set("params", Json.object()
                .put("a", "Ada").put("b", "Bob").put("d", DAY_ZERO.plusDays(key).toString())));
        return http.send(HttpRequest.newBuilder(URI.create(url + "/mutate")).timeout(Duration.ofSeconds(60))
                        .header("Content-Type", "application/json").header("Idempotency-Key", "write-" + key)
                        .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The Knows edges of main, counted by their {@code since} date, from the NDJSON export. */
    private Map<String, Integer> knowsEdgesByDate(String url) throws Exception {
        HttpResponse<String> export = http.send(HttpRequest.newBuilder(URI.create(url + "/export"))
                .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(export.statusCode()).as(export.body()).isEqualTo(200);
        Map<String, Integer> counts = new TreeMap<>();
        export.body().lines().filter(line -> !line.isBlank()).map(line -> Json.parse(line, "export line"))
                .filter(line -> "Knows".equals(line.path("edge").asText(null)))
                .forEach(edge -> counts.merge(edge.path("data").path("since").asText(), 1, Integer::sum));
        return counts;
    }

    /** The pid the lease object names (its holder, live or not). */
    private static long holderPid(StorageServices services, GraphRoot.S3 root) {
        byte[] lease = services.objectStore(root).get(WriterLease.KEY).block().orElseThrow();
        return Json.parse(new String(lease, StandardCharsets.UTF_8), WriterLease.KEY).path("pid").asLong();
    }

    /** Reads the child's output on a thread of its own (a full pipe would stall it), keeping it for diagnosis. */
    private static StringBuffer drain(Process child) {
        StringBuffer out = new StringBuffer();
        Thread reader = new Thread(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) out.append(line).append('\n');
            } catch (IOException closed) {
                // The child is gone.
            }
        }, "child-output-" + child.pid());
        reader.setDaemon(true);
        reader.start();
        return out;
    }

    /** Waits (on the drained output, not by sleeping a fixed time) until the child printed its banner. */
    private static void awaitBanner(Server server) {
        Flux.interval(Duration.ofMillis(100))
                .onBackpressureDrop()
                .filter(tick -> server.output().indexOf("omnigraph serving") >= 0 || !server.process().isAlive())
                .blockFirst(Duration.ofMinutes(3));
        assertThat(server.output().toString()).as("banner of " + server.url()).contains("omnigraph serving");
    }

    private static String tail(StringBuffer output) {
        String text = output.toString();
        return text.length() <= 6000 ? text : text.substring(text.length() - 6000);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}

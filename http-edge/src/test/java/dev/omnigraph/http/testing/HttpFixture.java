package dev.omnigraph.http.testing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.http.server.OmnigraphServer;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.testing.StorageFixture;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * A real server on an ephemeral loopback port over real graphs, and a real Reactor Netty client. Every error
 * response it reads is checked by {@link ErrorBodyAudit}.
 */
public final class HttpFixture {
    public static final String SCHEMA = """
            node Person {
                name: String @key
                age: I32?
                bio: String?
            }
            node Company {
                name: String @key
            }
            edge Knows: Person -> Person {
                since: Date?
            }
            edge WorksAt: Person -> Company @card(0..1)
            """;

    public static final String QUERIES = """
            query addPerson($name: String, $age: I32?) { insert Person { name: $name, age: $age } }
            query setAge($name: String, $age: I32) { update Person set { age: $age } where name = $name }
            query knows($a: String, $b: String) { insert Knows { from: $a, to: $b } }
            query people() {
                match { $p: Person }
                return { $p.name, $p.age }
                order { $p.name }
            }
            """;

    public static final String PEOPLE = String.join("\n",
            "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":36}}",
            "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\",\"age\":41}}",
            "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}",
            "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Bob\",\"data\":{\"id\":\"k1\",\"since\":\"2020-01-02\"}}",
            "{\"edge\":\"WorksAt\",\"from\":\"Ada\",\"to\":\"Acme\",\"data\":{\"id\":\"w1\"}}") + "\n";

    /** A response: status, headers, and the body as text. */
    public record Reply(int status, HttpHeaders headers, String body) {
        public JsonNode json() {
            return Json.parse(body, "response");
        }

        @Override
        public String toString() {
            return status + " " + body;
        }
    }

    public final StorageServices services;

    public HttpFixture() {
        this(new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage()));
    }

    /** A fixture over {@code services} (e.g. with a counting table storage); {@link #close} closes its tables. */
    public HttpFixture(StorageServices services) {
        this.services = services;
    }
    public OmnigraphServer server;
    private HttpClient client;

    /** Creates a graph at {@code root} with the test schema. */
    public Omnigraph init(Path root) {
        return Omnigraph.init(services, root, SCHEMA).block(Duration.ofSeconds(60));
    }

    public OmnigraphServer start(OmnigraphServer.Config config) {
        return start(config, io.micrometer.observation.ObservationRegistry.NOOP);
    }

    /** A server whose requests (and the engine work they do) are observations on {@code observations}. */
    public OmnigraphServer start(OmnigraphServer.Config config, io.micrometer.observation.ObservationRegistry observations) {
        server = OmnigraphServer.start(services, config, dev.omnigraph.http.server.ServerPolicy.none(), observations)
                .block(Duration.ofSeconds(60));
        client = HttpClient.newConnection().baseUrl(server.baseUrl()).responseTimeout(Duration.ofSeconds(120));
        return server;
    }

    /** Starts a server that authorizes every request with {@code policy}. */
    public OmnigraphServer start(OmnigraphServer.Config config, dev.omnigraph.http.server.ServerPolicy policy) {
        server = OmnigraphServer.start(services, config, policy).block(Duration.ofSeconds(60));
        client = HttpClient.newConnection().baseUrl(server.baseUrl()).responseTimeout(Duration.ofSeconds(120));
        return server;
    }

    public OmnigraphServer start(Path root) {
        return start(OmnigraphServer.Config.of(root));
    }

    public HttpClient client() {
        return client;
    }

    public Reply get(String path) {
        return send(HttpMethod.GET, path, Map.of(), Mono.empty());
    }

    public Reply postJson(String path, String json) {
        return send(HttpMethod.POST, path, Map.of("Content-Type", "application/json"), text(json));
    }

    public Reply postJson(String path, JsonNode json) {
        return postJson(path, Json.text(json));
    }

    public Reply send(HttpMethod method, String path, Map<String, String> headers, Publisher<? extends ByteBuf> body) {
        return sendAsync(method, path, headers, body).block(Duration.ofSeconds(120));
    }

    public Mono<Reply> sendAsync(HttpMethod method, String path, Map<String, String> headers,
                                 Publisher<? extends ByteBuf> body) {
        return client.headers(h -> headers.forEach(h::set))
                .request(method)
                .uri(path)
                .send(body)
                .responseSingle((response, content) -> content.asString(StandardCharsets.UTF_8).defaultIfEmpty("")
                        .map(text -> new Reply(response.status().code(), response.responseHeaders(), text)))
                .doOnNext(reply -> {
                    if (reply.status() >= 400) ErrorBodyAudit.check(reply.status(), reply.body());
                });
    }

    public static Mono<ByteBuf> text(String text) {
        return Mono.fromSupplier(() -> Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** {@code text} as a chunked body of {@code chunk}-byte pieces (no Content-Length). */
    public static Flux<ByteBuf> chunks(byte[] bytes, int chunk) {
        return Flux.range(0, (bytes.length + chunk - 1) / chunk)
                .map(i -> Unpooled.wrappedBuffer(bytes, i * chunk, Math.min(chunk, bytes.length - i * chunk)));
    }

    public static JsonNode mutation(String name, String params) {
        return Json.object().put("query", QUERIES).put("name", name).set("params", Json.parse(params, "params"));
    }

    /** Shuts the server down and closes the leak-checked table storage (the scheduler is shared per JVM). */
    public void close() {
        try {
            if (server != null) server.shutdown().block(server.shutdownBound());
        } finally {
            services.tables().close();
        }
    }
}

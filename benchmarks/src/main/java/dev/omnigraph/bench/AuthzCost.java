package dev.omnigraph.bench;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.http.policy.AccessRequest;
import dev.omnigraph.http.policy.BundleReader;
import dev.omnigraph.http.policy.CedarPolicy;
import dev.omnigraph.http.policy.PolicyAction;
import dev.omnigraph.http.server.BearerTokens;
import dev.omnigraph.http.server.OmnigraphServer;
import dev.omnigraph.http.server.ServerPolicy;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/**
 * What authorization costs a request (issue 34: goal under 0.2 ms on the median): a read ({@code GET /snapshot})
 * and a write ({@code POST /mutate}) on a server with tokens and no policy against one with tokens and a 100-rule
 * bundle, interleaved per repetition; and the decision alone, as Cedar's native call and as a remembered answer.
 */
final class AuthzCost implements Scenario {
    static final String TOKEN = "Bearer bench-token-1";

    @Override
    public String name() {
        return "authz-cost";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        ScenarioReport report = new ScenarioReport(name(), "HTTP read and write with no policy vs a 100-rule bundle, "
                + "and one decision (uncached Cedar call, remembered answer).").unit("ms per request / decision");
        Path dir = ctx.workDir(name());
        Path bundle = Files.writeString(dir.resolve("policy.yaml"), bundle(100));
        int warmup = ctx.options().pick(30, 2);
        int reps = ctx.options().pick(300, 5);

        CedarPolicy policy = CedarPolicy.compile(BundleReader.read(bundle));
        Series cold = report.row("decision: Cedar call (never asked before)", null);
        Series warm = report.row("decision: remembered", "decision: Cedar call (never asked before)");
        for (int i = 0; i < warmup + reps; i++) {
            AccessRequest request = AccessRequest.of("actor99", PolicyAction.CHANGE, "g", "b-" + i, null);
            long start = System.nanoTime();
            policy.decide(request);
            long mid = System.nanoTime();
            policy.decide(request);
            long end = System.nanoTime();
            if (i >= warmup) {
                cold.sampleNanos(mid - start);
                warm.sampleNanos(end - mid);
            }
        }

        BearerTokens tokens = BearerTokens.parse("bench-token-1=actor99", "bench");
        OmnigraphServer open = start(ctx, dir.resolve("open"), tokens, ServerPolicy.none());
        OmnigraphServer gated = start(ctx, dir.resolve("gated"), tokens, ServerPolicy.load(Optional.of(bundle), Map.of()));
        try {
            Series readOpen = report.row("GET /snapshot?branch=feature, no policy", null);
            Series readGated = report.row("GET /snapshot?branch=feature, 100-rule policy", "GET /snapshot?branch=feature, no policy");
            Series writeOpen = report.row("POST /mutate on feature, no policy", null);
            Series writeGated = report.row("POST /mutate on feature, 100-rule policy", "POST /mutate on feature, no policy");
            HttpClient openClient = HttpClient.create().baseUrl(open.baseUrl());
            HttpClient gatedClient = HttpClient.create().baseUrl(gated.baseUrl());
            for (int i = 0; i < warmup + reps; i++) {
                boolean measured = i >= warmup;
                String body = "{\"query\":" + quote(Workload.QUERIES) + ",\"name\":\"addPerson\",\"branch\":\"feature\","
                        + "\"params\":{\"name\":\"p" + i + "\",\"age\":1}}";
                boolean gatedFirst = i % 2 == 0;
                for (int k = 0; k < 2; k++) {
                    boolean g = (k == 0) == gatedFirst;
                    HttpClient c = g ? gatedClient : openClient;
                    ctx.runOrMeasure(measured ? (g ? readGated : readOpen) : null, () -> get(c, "/snapshot?branch=feature"));
                    ctx.runOrMeasure(measured ? (g ? writeGated : writeOpen) : null, () -> post(c, "/mutate", body));
                }
            }
        } finally {
            open.shutdown().block(open.shutdownBound());
            gated.shutdown().block(gated.shutdownBound());
        }
        report.note("warm-up " + warmup + " repetitions per series; both servers authenticate a bearer token; the "
                + "gated one decides each request with a 100-rule, 100-group bundle (the same questions repeat, so "
                + "after the first they are answered from memory)");
        return report;
    }

    private static OmnigraphServer start(BenchContext ctx, Path root, BearerTokens tokens, ServerPolicy policy) {
        Omnigraph graph = ctx.run(() -> Omnigraph.at(root).services(ctx.services()).init(Workload.SCHEMA));
        ctx.run(() -> graph.branches().create("feature"));
        graph.close();
        return OmnigraphServer.start(ctx.services(), OmnigraphServer.Config.of(root).withTokens(tokens), policy)
                .block(Duration.ofSeconds(60));
    }

    private static Mono<Integer> get(HttpClient client, String path) {
        return client.headers(h -> h.set("Authorization", TOKEN)).get().uri(path)
                .responseSingle((r, body) -> body.asString().defaultIfEmpty("").map(text -> check(r.status().code(), text)));
    }

    private static Mono<Integer> post(HttpClient client, String path, String json) {
        return client.headers(h -> h.set("Authorization", TOKEN).set("Content-Type", "application/json")).post().uri(path)
                .send(Mono.just(Unpooled.wrappedBuffer(json.getBytes(StandardCharsets.UTF_8))))
                .responseSingle((r, body) -> body.asString().defaultIfEmpty("").map(text -> check(r.status().code(), text)));
    }

    private static int check(int status, String body) {
        if (status != 200) throw new IllegalStateException("HTTP " + status + ": " + body);
        return status;
    }

    private static String quote(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    }

    /** {@code rules} groups of one actor each, one rule per group (read and change off main). */
    static String bundle(int rules) {
        StringBuilder out = new StringBuilder("version: 1\ngroups:\n");
        for (int i = 0; i < rules; i++) out.append("  g").append(i).append(": [actor").append(i).append("]\n");
        out.append("protected_branches: [main]\nrules:\n");
        for (int i = 0; i < rules; i++) {
            out.append("  - { id: r").append(i).append(", allow: { actors: { group: g").append(i)
                    .append(" }, actions: [read, change], branch_scope: unprotected } }\n");
        }
        return out.toString();
    }
}

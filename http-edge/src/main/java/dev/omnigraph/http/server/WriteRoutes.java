package dev.omnigraph.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.query.QueryDecl;
import dev.omnigraph.engine.write.IdempotentRequest;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.QuerySources;
import dev.omnigraph.http.wire.Shapes;
import dev.omnigraph.storage.ValidText;
import dev.omnigraph.storage.error.ParseError;
import dev.omnigraph.storage.manifest.GraphBranches;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Per-graph write routes: mutate (and the deprecated /change, /mutate/if-graph-commit), load (JSON envelope, and
 * the deprecated /ingest) and load/ndjson.
 */
final class WriteRoutes {
    static final String IF_GRAPH_COMMIT = "Omnigraph-If-Graph-Commit";
    /** Makes a write idempotent: a retry with the same key and request answers the first outcome, writing nothing. */
    static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    /** Set on a response that repeats an earlier write's outcome instead of writing. */
    static final String IDEMPOTENT_REPLAYED = "Idempotent-Replayed";
    /** The envelope's data is handed to the engine in slices, as a streamed body would be. */
    private static final int SLICE = 64 * 1024;

    private WriteRoutes() {
    }

    static List<Route> routes() {
        ApiDoc mutate = ApiDoc.of("mutate", "Run a mutation as one commit", "ChangeOutput").body("MutateRequest")
                .statuses(409, 503).takesIdempotencyKey();
        ApiDoc load = ApiDoc.of("load", "Load NDJSON records sent inline in a JSON envelope as one commit", "IngestOutput")
                .body("LoadRequest").statuses(409, 503).takesIdempotencyKey();
        return List.of(
                new Route("POST", "mutate", (ex, g, v) -> mutate(ex, g, false), mutate),
                new Route("POST", "change", (ex, g, v) -> mutate(ex, g, false),
                        mutate.alias("change", "Deprecated alias of /mutate").deprecatedFor("mutate")),
                new Route("POST", "mutate/if-graph-commit", (ex, g, v) -> mutate(ex, g, true),
                        ApiDoc.of("mutate_if_graph_commit", "Run a mutation only if the branch head is the commit in "
                                + "Omnigraph-If-Graph-Commit", "ChangeOutput").body("MutateRequest").statuses(409, 503)
                                .takesIdempotencyKey().takesIfGraphCommit()),
                new Route("POST", "load", WriteRoutes::loadEnvelope, load),
                new Route("POST", "ingest", WriteRoutes::loadEnvelope,
                        load.alias("ingest", "Deprecated alias of /load").deprecatedFor("load")),
                new Route("POST", "load/ndjson", WriteRoutes::loadNdjson,
                        ApiDoc.of("loadNdjson", "Load a raw NDJSON body, streamed, as one commit; with Accept: "
                                + "application/x-ndjson, progress lines while it runs and the outcome as the last line", "LoadOutput")
                                .rawBody(ApiDoc.NDJSON).statuses(409, 503).takesIdempotencyKey()
                                .param("branch", "Branch (default main)")
                                .param("mode", "append, merge or overwrite (default merge)")
                                .param("from", "Create the branch from this branch or commit first when it does not exist "
                                        + "(echoed as base_branch); without it the branch must exist")));
    }

    /**
     * A mutation as one commit. The conditional route requires the expected head in the header (a strong,
     * specific value: {@code *} and weak tags are refused); the ordinary routes refuse the header, so a client
     * never believes a write was conditional when it was not.
     */
    private static Mono<Void> mutate(Exchange ex, Omnigraph graph, boolean conditional) {
        WriteOptions chosen = writeOptions(ex, ifGraphCommit(ex, conditional));
        return ex.jsonBody(false).flatMap(body -> {
            String source = ReadRoutes.text(body, "query", "query_source");
            if (source == null) throw HttpProblem.badRequest("the request body needs 'query'");
            QueryDecl decl = QuerySources.pick(source, ReadRoutes.text(body, "name", "query_name"));
            if (ReadRoutes.text(body, "snapshot") != null) {
                throw HttpProblem.badRequest("a mutation writes a branch head; 'snapshot' is for reads");
            }
            String branch = Optional.ofNullable(ReadRoutes.text(body, "branch")).orElse(GraphBranches.MAIN);
            Map<String, Object> params = Json.params(body.get("params"), "params");
            return graph.mutate(branch, source, decl.name(), params, chosen)
                    .flatMap(outcome -> markReplay(ex, outcome).json(200, Shapes.mutation(branch, decl.name(), outcome, ex.actor)));
        });
    }

    /**
     * The expected head of a conditional write route (required there), or empty on an ordinary route, which
     * refuses the header.
     */
    static Optional<String> ifGraphCommit(Exchange ex, boolean conditional) {
        Optional<String> expected = ex.header(IF_GRAPH_COMMIT).map(String::strip);
        if (!conditional && expected.isPresent()) {
            throw HttpProblem.badRequest(IF_GRAPH_COMMIT + " is only honoured on the /if-graph-commit routes");
        }
        return conditional ? Optional.of(expectedCommit(expected)) : Optional.empty();
    }

    /** A mutation's options: the caller as actor, the expected head if any, the idempotency key if sent. */
    static WriteOptions writeOptions(Exchange ex, Optional<String> expected) {
        WriteOptions options = ex.actor.map(WriteOptions.DEFAULT::actor).orElse(WriteOptions.DEFAULT);
        options = expected.map(options::ifGraphCommit).orElse(options);
        return idempotencyKey(ex).map(options::idempotencyKey).orElse(options);
    }

    private static String expectedCommit(Optional<String> header) {
        String value = header.orElseThrow(() -> HttpProblem.badRequest(
                "POST /mutate/if-graph-commit needs the " + IF_GRAPH_COMMIT + " header (the graph_commit_id you read)"));
        if (value.isEmpty() || value.equals("*")) {
            throw HttpProblem.badRequest(IF_GRAPH_COMMIT + " must name one commit id; '*' is not accepted");
        }
        if (value.startsWith("W/")) {
            throw HttpProblem.badRequest(IF_GRAPH_COMMIT + " must be a strong commit id; weak tags are not accepted");
        }
        if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
            value = value.substring(1, value.length() - 1);
        }
        if (value.isEmpty() || value.contains(",") || value.contains("\"")) {
            throw HttpProblem.badRequest(IF_GRAPH_COMMIT + " must name exactly one commit id");
        }
        return value;
    }

    /** {@code POST /load}: {@code {data, branch?, from?, mode?}} with the NDJSON inline, up to the load limit. */
    private static Mono<Void> loadEnvelope(Exchange ex, Omnigraph graph, Map<String, String> vars) {
        return ex.loadEnvelope().flatMap(body -> {
            JsonNode data = body.get("data");
            if (data == null || !data.isTextual()) throw HttpProblem.badRequest("the request body needs 'data' (NDJSON text)");
            String branch = Optional.ofNullable(ReadRoutes.text(body, "branch")).orElse(GraphBranches.MAIN);
            Optional<String> from = Optional.ofNullable(ReadRoutes.text(body, "from"));
            LoadMode mode = LoadMode.parse(Optional.ofNullable(ReadRoutes.text(body, "mode")).orElse("merge"));
            byte[] bytes = utf8(data.asText());
            Flux<ByteBuffer> slices = Flux.range(0, (bytes.length + SLICE - 1) / SLICE)
                    .map(i -> ByteBuffer.wrap(bytes, i * SLICE, Math.min(SLICE, bytes.length - i * SLICE)).slice());
            return ensureBranch(graph, branch, from).flatMap(created -> graph.load(branch, mode, slices, loadOptions(ex))
                    .flatMap(outcome -> markReplay(ex, outcome).json(200, Shapes.load(branch, from, created, mode, outcome,
                            ex.actor, Optional.of(graph.location().displayUri())))));
        });
    }

    /**
     * The envelope's NDJSON as UTF-8. Its JSON escapes can spell a lone surrogate (or NUL) into the text itself,
     * which {@code getBytes} would silently turn into {@code ?}: refused instead, as the NDJSON reader refuses the
     * same text, with the NDJSON line and column (in code points) where it stands.
     */
    private static byte[] utf8(String ndjson) {
        int at = ValidText.firstInvalid(ndjson);
        if (at >= 0) {
            int lineStart = ndjson.lastIndexOf('\n', at - 1) + 1;
            int line = 1 + (int) ndjson.substring(0, lineStart).chars().filter(c -> c == '\n').count();
            int column = ndjson.codePointCount(lineStart, at) + 1;
            throw new ParseError("ndjson", line, column, "", "the line contains " + ValidText.describe(ndjson, at)
                    + "; text must be valid Unicode without NUL");
        }
        return ndjson.getBytes(StandardCharsets.UTF_8);
    }

    /** {@code POST /load/ndjson?branch=&mode=}: the raw body streamed into the engine as it arrives. */
    private static Mono<Void> loadNdjson(Exchange ex, Omnigraph graph, Map<String, String> vars) {
        String branch = ex.param("branch").orElse(GraphBranches.MAIN);
        Optional<String> from = ex.param("from");
        LoadMode mode = LoadMode.parse(ex.param("mode").orElse("merge"));
        Flux<ByteBuffer> body = ex.ndjsonBody();
        if (LoadProgressStream.wanted(ex)) {
            return LoadProgressStream.run(ex, body, counted -> ensureBranch(graph, branch, from)
                    .flatMap(created -> graph.load(branch, mode, counted, loadOptions(ex))
                            // The replay mark rides in the done line: the headers went out with the first line.
                            .map(outcome -> new LoadProgressStream.Done(Shapes.load(branch, from, created, mode, outcome,
                                    ex.actor, Optional.empty()), outcome.replayed()))));
        }
        return ensureBranch(graph, branch, from).flatMap(created -> graph.load(branch, mode, body, loadOptions(ex))
                .flatMap(outcome -> markReplay(ex, outcome).json(200, Shapes.load(branch, from, created, mode, outcome,
                        ex.actor, Optional.empty()))));
    }

    /** A load {@code from} a branch or commit creates its branch unless it exists; emits whether it did. */
    private static Mono<Boolean> ensureBranch(Omnigraph graph, String branch, Optional<String> from) {
        return from.map(source -> graph.branches().ensure(branch, source)).orElse(Mono.just(false));
    }

    private static LoadOptions loadOptions(Exchange ex) {
        LoadOptions options = ex.actor.map(LoadOptions.DEFAULT::actor).orElse(LoadOptions.DEFAULT);
        return idempotencyKey(ex).map(options::idempotencyKey).orElse(options);
    }

    /** The {@code Idempotency-Key} header, checked here so the 400 names the header (one value, 1–255 printable ASCII). */
    private static Optional<String> idempotencyKey(Exchange ex) {
        List<String> values = ex.request.requestHeaders().getAll(IDEMPOTENCY_KEY);
        if (values.isEmpty()) {
            return Optional.empty();
        }
        if (values.size() > 1) {
            throw HttpProblem.badRequest(IDEMPOTENCY_KEY + " must be sent once, got " + values.size() + " values");
        }
        return Optional.of(IdempotentRequest.validKey(values.get(0), "the " + IDEMPOTENCY_KEY + " header"));
    }

    static Exchange markReplay(Exchange ex, WriteOutcome outcome) {
        if (outcome.replayed()) {
            ex.response.header(IDEMPOTENT_REPLAYED, "true");
        }
        return ex;
    }
}

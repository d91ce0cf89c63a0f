package dev.omnigraph.http.server;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.manifest.GraphBranches;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code GET /blob?type=&id=&property=[&branch=|&snapshot=]}: the bytes of one Blob property, streamed as
 * {@code application/octet-stream} in chunks of {@link #CHUNK} bytes. One {@code Range: bytes=…} range is honoured
 * (206 with {@code Content-Range}); an unsatisfiable one is 416 with {@code Content-Range: bytes *}/length.
 */
final class BlobRoute {
    static final String OCTETS = "application/octet-stream";
    /** Bytes per network write (the reference's blob delivery chunk is 4 MiB; smaller keeps each write short). */
    static final int CHUNK = 1 << 20;

    private BlobRoute() {
    }

    static Route route() {
        return new Route("GET", "blob", BlobRoute::get,
                ApiDoc.of("getBlob", "The bytes of one Blob property (200, or 206 for a Range)", null)
                        .respondsWith(OCTETS)
                        .param("type", "Node or edge type").param("id", "Entity id").param("property", "Blob property")
                        .param("branch", "Branch (default main)").param("snapshot", "A commit id; exclusive with branch")
                        .statuses(416));
    }

    private static Mono<Void> get(Exchange ex, Omnigraph graph, Map<String, String> vars) {
        String type = required(ex, "type");
        String id = required(ex, "id");
        String property = required(ex, "property");
        Optional<String> snapshot = ex.param("snapshot");
        if (snapshot.isPresent() && ex.param("branch").isPresent())
            throw HttpProblem.badRequest("give either branch or snapshot, not both");
        ReadTarget target = snapshot.map(ReadTarget::commit)
                .orElseGet(() -> ReadTarget.branch(ex.param("branch").orElse(GraphBranches.MAIN)));
        Optional<String> range = ex.header(HttpHeaderNames.RANGE);
        return graph.blob(target, type, id, property).flatMap(bytes -> {
            long[] span = range.isPresent() ? ByteRange.parse(range.get(), bytes.length) : null;
            if (span != null && span.length == 0) {
                ex.response.header(HttpHeaderNames.CONTENT_RANGE, "bytes */" + bytes.length);
                long[] asked = ByteRange.requested(range.get(), bytes.length);
                throw new HttpProblem(416, "bad_request", "range " + range.get() + " is not satisfiable for "
                        + bytes.length + " bytes").withDetail("blob_range", Json.object().put("start", asked[0])
                        .put("end", asked[1]).put("length", bytes.length));
            }
            int from = span == null ? 0 : (int) span[0];
            int to = span == null ? bytes.length : (int) span[1] + 1;
            if (span != null) {
                ex.response.status(206).header(HttpHeaderNames.CONTENT_RANGE,
                        "bytes " + from + "-" + (to - 1) + "/" + bytes.length);
            } else {
                ex.response.status(200);
            }
            ex.response.header(HttpHeaderNames.ACCEPT_RANGES, "bytes")
                    .header(HttpHeaderNames.CONTENT_TYPE, OCTETS)
                    .header(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(to - from));
            Flux<byte[]> chunks = Flux.range(0, (to - from + CHUNK - 1) / CHUNK)
                    .map(i -> Arrays.copyOfRange(bytes, from + i * CHUNK, Math.min(to, from + (i + 1) * CHUNK)));
            return ex.send(ex.response.sendByteArray(chunks));
        });
    }

    private static String required(Exchange ex, String name) {
        return ex.param(name).orElseThrow(() -> HttpProblem.badRequest("the blob route needs ?" + name + "="));
    }
}

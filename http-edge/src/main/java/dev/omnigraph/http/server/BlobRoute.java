package dev.omnigraph.http.server;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.http.wire.HttpProblem;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.BlobWindow;
import dev.omnigraph.storage.error.BlobRangeNotSatisfiable;
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
 * (206 with {@code Content-Range}), and only its bytes are read from storage; an unsatisfiable one is 416 with
 * {@code Content-Range: bytes *}/length.
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
        BlobWindow window = range.map(BlobRoute::window).orElseGet(BlobWindow::whole);
        return graph.blob(target, type, id, property, window)
                .onErrorMap(BlobRangeNotSatisfiable.class, e -> {
                    ex.response.header(HttpHeaderNames.CONTENT_RANGE, "bytes */" + e.size());
                    long[] asked = ByteRange.requested(range.orElseThrow(), e.size());
                    return new HttpProblem(416, "bad_request", "range " + range.get() + " is not satisfiable for "
                            + e.size() + " bytes").withDetail("blob_range", Json.object().put("start", asked[0])
                            .put("end", asked[1]).put("length", e.size()));
                })
                .flatMap(slice -> {
                    byte[] bytes = slice.bytes();
                    if (range.isPresent()) {
                        ex.response.status(206).header(HttpHeaderNames.CONTENT_RANGE, "bytes " + slice.offset() + "-"
                                + (slice.offset() + bytes.length - 1) + "/" + slice.size());
                    } else {
                        ex.response.status(200);
                    }
                    ex.response.header(HttpHeaderNames.ACCEPT_RANGES, "bytes")
                            .header(HttpHeaderNames.CONTENT_TYPE, OCTETS)
                            .header(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(bytes.length));
                    Flux<byte[]> chunks = Flux.range(0, (bytes.length + CHUNK - 1) / CHUNK)
                            .map(i -> Arrays.copyOfRange(bytes, i * CHUNK, Math.min(bytes.length, (i + 1) * CHUNK)));
                    return ex.send(ex.response.sendByteArray(chunks));
                });
    }

    /**
     * The window of one {@code Range} header, resolved by the storage once it knows the blob's size, so only the
     * range is read. A malformed header is refused (400) here, before anything is read: checked against the
     * largest size, the header's syntax alone decides, so resolving it later cannot throw.
     */
    private static BlobWindow window(String header) {
        ByteRange.parse(header, Long.MAX_VALUE);
        return size -> {
            long[] span = ByteRange.parse(header, size);
            return span.length == 0 ? Optional.empty() : Optional.of(new BlobWindow.Span(span[0], span[1] - span[0] + 1));
        };
    }

    private static String required(Exchange ex, String name) {
        return ex.param(name).orElseThrow(() -> HttpProblem.badRequest("the blob route needs ?" + name + "="));
    }
}

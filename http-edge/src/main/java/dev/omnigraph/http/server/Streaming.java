package dev.omnigraph.http.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.http.wire.Json;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Streamed responses: the engine's rows or lines go out in batches as they are produced, with its demand. The
 * first signal decides the status, so a failure before any data is still a proper JSON error response; a failure
 * after the status line has gone out can only abort the connection.
 */
final class Streaming {
    /** Rows and export lines go out in batches of this many, each one network write. */
    static final int BATCH = 256;

    private Streaming() {
    }

    /**
     * {@code head} with a {@code rows} array (one object per row, keyed by column) and {@code row_count} added at
     * the end. An answer of fewer than {@link #BATCH} rows is complete before anything is written, so it goes out
     * as one body with a {@code Content-Length} (one write, and a failure among those rows is still a proper error
     * response); a longer one is written as head, row batches, count, with the engine's demand.
     */
    static Mono<Void> rowsEnvelope(Exchange ex, ObjectNode head, List<String> columns, Flux<List<Object>> rows,
                                   Function<String, String> entityKinds) {
        String headText = Json.text(head);
        String prefix = headText.substring(0, headText.length() - 1) + (head.isEmpty() ? "" : ",") + "\"rows\":[";
        AtomicLong count = new AtomicLong();
        return rows.buffer(BATCH).switchOnFirst((first, batches) -> {
            if (first.isOnError()) return ex.error(first.getThrowable(), entityKinds);
            List<List<Object>> firstBatch = first.hasValue() ? first.get() : List.of();
            if (firstBatch.size() < BATCH) {
                // Flux.buffer emits a short batch only at the end: this is the whole answer.
                StringBuilder text = new StringBuilder(prefix);
                appendRows(text, columns, firstBatch, count);
                byte[] body = text.append("],\"row_count\":").append(count.get()).append('}')
                        .toString().getBytes(StandardCharsets.UTF_8);
                return ex.send(ex.response.status(200).header(HttpHeaderNames.CONTENT_TYPE, Exchange.JSON)
                        .header(HttpHeaderNames.CONTENT_LENGTH, Integer.toString(body.length))
                        .sendByteArray(Mono.just(body)).then());
            }
            Flux<byte[]> chunks = Flux.concat(
                    Mono.just(prefix.getBytes(StandardCharsets.UTF_8)),
                    batches.map(batch -> appendRows(new StringBuilder(), columns, batch, count).toString()
                            .getBytes(StandardCharsets.UTF_8)),
                    Mono.fromSupplier(() -> ("],\"row_count\":" + count.get() + "}").getBytes(StandardCharsets.UTF_8)));
            return ex.send(ex.response.status(200).header(HttpHeaderNames.CONTENT_TYPE, Exchange.JSON).sendByteArray(chunks));
        }).then();
    }

    /** Rows as comma-separated JSON objects, a comma first unless they are the envelope's first. */
    private static StringBuilder appendRows(StringBuilder text, List<String> columns, List<List<Object>> batch,
                                            AtomicLong count) {
        for (List<Object> row : batch) {
            if (count.getAndIncrement() > 0) text.append(',');
            text.append(Json.text(Json.row(columns, row)));
        }
        return text;
    }

    /** {@code application/x-ndjson}: one line per element. */
    static Mono<Void> ndjson(Exchange ex, Flux<String> lines, Function<String, String> entityKinds) {
        return lines.switchOnFirst((first, all) -> {
            if (first.isOnError()) return ex.error(first.getThrowable(), entityKinds);
            Flux<byte[]> chunks = all.buffer(BATCH).map(batch -> {
                StringBuilder text = new StringBuilder();
                batch.forEach(line -> text.append(line).append('\n'));
                return text.toString().getBytes(StandardCharsets.UTF_8);
            });
            return ex.send(ex.response.status(200).header(HttpHeaderNames.CONTENT_TYPE, Exchange.NDJSON).sendByteArray(chunks));
        }).then();
    }
}

package dev.omnigraph.http.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.http.wire.ErrorBodies;
import dev.omnigraph.http.wire.Json;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A load that reports progress as it goes, for a client that asked for it with {@code Accept: application/x-ndjson}:
 * the answer is {@code 200} with one JSON object per line: {@code progress} lines (bytes and lines received so far)
 * at most every {@link #EVERY}, one {@code received} line with what the load consumed, then exactly one last line,
 * {@code done} (the load's usual answer under {@code result}, and {@code replayed}) or {@code error} (the error body and the status the
 * plain answer would have had). The status line goes out before the outcome is known, so a client must read to the
 * last line; nothing is committed unless it says {@code done}.
 */
final class LoadProgressStream {
    static final Duration EVERY = Duration.ofMillis(500);

    private LoadProgressStream() {
    }

    /** Whether the client asked for a progress stream. */
    static boolean wanted(Exchange ex) {
        return ex.header(HttpHeaderNames.ACCEPT).map(accept -> accept.contains(Exchange.NDJSON)).orElse(false);
    }

    /** Runs {@code load} over {@code body}, counting what it consumes, and streams the lines above. */
    static Mono<Void> run(Exchange ex, Flux<ByteBuffer> body, Function<Flux<ByteBuffer>, Mono<Done>> load) {
        AtomicLong bytes = new AtomicLong();
        AtomicLong lines = new AtomicLong();
        Flux<ByteBuffer> counted = body.doOnNext(chunk -> {
            bytes.addAndGet(chunk.remaining());
            lines.addAndGet(newlines(chunk));
        });
        Mono<String> outcome = load.apply(counted)
                .map(done -> Json.text(Json.object().put("event", "done").put("replayed", done.replayed())
                        .set("result", done.answer())))
                .onErrorResume(failure -> Mono.fromSupplier(() -> {
                    ErrorBodies.Reply reply = ex.failureReply(failure, name -> null);
                    ObjectNode error = Json.object().put("event", "error").put("status", reply.status());
                    error.set("error", reply.body());
                    return Json.text(error);
                }))
                .cache(); // awaited by the ticks and then sent: one load
        Flux<String> events = Flux.interval(EVERY, EVERY).map(tick -> line("progress", bytes, lines))
                .takeUntilOther(outcome)
                // The totals the load consumed, then its outcome.
                .concatWith(Mono.fromSupplier(() -> line("received", bytes, lines)))
                .concatWith(outcome);
        Flux<byte[]> chunks = events.map(text -> (text + "\n").getBytes(StandardCharsets.UTF_8));
        return ex.send(ex.response.status(200).header(HttpHeaderNames.CONTENT_TYPE, Exchange.NDJSON)
                .sendByteArray(chunks).then());
    }

    /** The load's usual answer, and whether an idempotency key replayed it (a header on a plain answer). */
    record Done(JsonNode answer, boolean replayed) {
    }

    private static String line(String event, AtomicLong bytes, AtomicLong lines) {
        return Json.text(Json.object().put("event", event).put("bytes_received", bytes.get())
                .put("lines_received", lines.get()));
    }

    /** Line feeds in the chunk's remaining bytes (the position is left where it was). */
    private static long newlines(ByteBuffer chunk) {
        long count = 0;
        for (int i = chunk.position(); i < chunk.limit(); i++) {
            if (chunk.get(i) == '\n') count++;
        }
        return count;
    }
}

package dev.omnigraph.engine.load;

import dev.omnigraph.engine.schema.Catalog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The strict NDJSON reader of bulk loads (languages §4.1, §4.3): bytes in, type-checked {@link LoadRecord}s
 * out, one line at a time. Lazy and demand-driven: input is pulled only as records are requested; read-ahead
 * is bounded by one chunk plus the bytes of the next line (itself capped), never the whole input. The first
 * bad line ends the flux with its error ({@code ParseError}, {@code ValidationError} or
 * {@code ResourceLimitExceeded}) after the records of the lines before it.
 *
 * <p>{@link #read(Flux)} parses on whichever thread delivers a chunk or requests a record. A line may take a
 * while to parse (up to 32 MiB), so input arriving on an event loop should go through {@link #read(Flux, Scheduler)}. Reusable and thread-safe: every subscription gets its own line state.
 */
public final class NdjsonReader {
    /** Per-line cap of the original engine ({@code graph_batch_line_bytes}). */
    public static final int DEFAULT_MAX_LINE_BYTES = 32 << 20;
    /** Read size for files; small enough to keep the look-ahead cheap, large enough to amortise syscalls. */
    static final int FILE_CHUNK_BYTES = 64 << 10;

    private final int maxLineBytes;
    private final LineParser parser;

    public NdjsonReader(Catalog catalog) {
        this(catalog, DEFAULT_MAX_LINE_BYTES);
    }

    /** @param maxLineBytes longest accepted line in bytes, without its LF / CRLF terminator */
    public NdjsonReader(Catalog catalog, int maxLineBytes) {
        Objects.requireNonNull(catalog, "catalog");
        if (maxLineBytes < 1 || maxLineBytes == Integer.MAX_VALUE)
            throw new IllegalArgumentException("maxLineBytes must be in [1, 2^31-2]: " + maxLineBytes);
        this.maxLineBytes = maxLineBytes;
        this.parser = new LineParser(catalog, maxLineBytes);
    }

    public int maxLineBytes() {
        return maxLineBytes;
    }

    /**
     * Records of an NDJSON file. The file is opened, read and closed on {@code ioScheduler} (file reads block);
     * records are delivered on it too. An I/O failure (including a missing file) ends the flux with the
     * {@link java.io.IOException} itself.
     */
    public Flux<LoadRecord> read(Path file, Scheduler ioScheduler) {
        return read(file, ioScheduler, chunk -> { });
    }

    /** As {@link #read(Path, Scheduler)}, showing each chunk read to {@code tap} first (e.g. to hash the input). */
    public Flux<LoadRecord> read(Path file, Scheduler ioScheduler, java.util.function.Consumer<ByteBuffer> tap) {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(ioScheduler, "ioScheduler");
        Flux<ByteBuffer> chunks = Flux.using(
                () -> FileChannel.open(file, StandardOpenOption.READ),
                channel -> Flux.<ByteBuffer>generate(sink -> {
                    try {
                        ByteBuffer buf = ByteBuffer.allocate(FILE_CHUNK_BYTES);
                        if (channel.read(buf) < 0) {
                            sink.complete();
                        } else {
                            sink.next(buf.flip());
                        }
                    } catch (IOException e) {
                        sink.error(e);
                    }
                }),
                channel -> closeOn(ioScheduler, channel));
        // subscribeOn also moves every later request (hence every generate call) onto the I/O scheduler.
        return read(chunks.doOnNext(tap)).subscribeOn(ioScheduler);
    }

    /**
     * As {@link #read(Flux)}, with all parsing and id minting on {@code parseScheduler} (which must allow
     * blocking, e.g. bounded-elastic): for input delivered on non-blocking threads. Records are delivered there.
     */
    public Flux<LoadRecord> read(Flux<ByteBuffer> chunks, Scheduler parseScheduler) {
        Objects.requireNonNull(chunks, "chunks");
        Objects.requireNonNull(parseScheduler, "parseScheduler");
        // Parsing is driven from two directions: chunk arrival (publishOn moves it) and downstream requests
        // that drain already-split lines (subscribeOn moves those). Prefetch 1 keeps the read-ahead at one chunk.
        return read(chunks.publishOn(parseScheduler, 1)).subscribeOn(parseScheduler);
    }

    /**
     * Records of an NDJSON byte stream. Chunks may split lines and UTF-8 characters anywhere; each chunk is
     * read from its position to its limit (the buffer itself is not modified) and not kept after it is split.
     * A final line without a terminating LF counts.
     */
    public Flux<LoadRecord> read(Flux<ByteBuffer> chunks) {
        Objects.requireNonNull(chunks, "chunks");
        return Flux.defer(() -> {
            LineSplitter splitter = new LineSplitter(maxLineBytes);
            ByteBuffer end = ByteBuffer.allocate(0); // identity marker for end of input
            // Prefetch 1: pull one chunk at a time, so demand for one record does not drain the source.
            return chunks.concatWith(Mono.just(end))
                    .flatMapIterable(chunk -> chunk == end ? splitter.finish() : splitter.feed(chunk), 1)
                    .map(line -> {
                        if (line.error() != null) throw line.error();
                        return parser.parse(line.number(), line.bytes());
                    });
        });
    }

    private static void closeOn(Scheduler scheduler, FileChannel channel) {
        try {
            scheduler.schedule(() -> closeQuietly(channel));
        } catch (RejectedExecutionException disposed) {
            closeQuietly(channel);
        }
    }

    private static void closeQuietly(FileChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // Read-only channel: nothing was written that a failed close could lose.
        }
    }
}

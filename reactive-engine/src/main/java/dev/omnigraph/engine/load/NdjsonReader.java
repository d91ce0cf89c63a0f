package dev.omnigraph.engine.load;

import dev.omnigraph.engine.schema.Catalog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * The strict NDJSON reader of bulk loads (languages §4.1, §4.3): bytes in, type-checked {@link LoadRecord}s
 * out, in input order. Lazy and demand-driven: input is pulled only as records are requested; read-ahead is
 * bounded by a few chunks plus the bytes of the next line (itself capped), never the whole input. With a
 * scheduler, the lines of several chunks are parsed side by side (parsing is most of a load's CPU). The first
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
        return parsed(chunks.doOnNext(tap), ioScheduler).subscribeOn(ioScheduler);
    }

    /**
     * As {@link #read(Flux)}, with all parsing and id minting on {@code parseScheduler} (which must allow
     * blocking, e.g. bounded-elastic): for input delivered on non-blocking threads. Records are delivered there.
     */
    public Flux<LoadRecord> read(Flux<ByteBuffer> chunks, Scheduler parseScheduler) {
        Objects.requireNonNull(chunks, "chunks");
        Objects.requireNonNull(parseScheduler, "parseScheduler");
        // Splitting is driven from two directions: chunk arrival (publishOn moves it) and downstream requests
        // (subscribeOn moves those). Prefetch 1 keeps the read-ahead of the source at one chunk.
        return parsed(chunks.publishOn(parseScheduler, 1), parseScheduler).subscribeOn(parseScheduler);
    }

    /**
     * Lines parsed a chunk at a time, up to {@link #PARSE_AHEAD} chunks at once on {@code scheduler}, records
     * delivered in input order. A chunk's first bad line ends its records; it is reported after every record of
     * the lines before it, whichever chunk finished parsing first, so the outcome is the sequential one.
     */
    private Flux<LoadRecord> parsed(Flux<ByteBuffer> chunks, Scheduler scheduler) {
        return lines(chunks)
                .filter(lines -> !lines.isEmpty())
                .flatMapSequential(lines -> Mono.fromCallable(() -> ParsedLines.of(parser, lines)).subscribeOn(scheduler),
                        PARSE_AHEAD, 1)
                .concatMap(ParsedLines::emit, 1);
    }

    /** Chunks parsed side by side: the machine's cores, and never more than a few chunks of read-ahead. */
    static final int PARSE_AHEAD = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));

    /**
     * Records of an NDJSON byte stream. Chunks may split lines and UTF-8 characters anywhere; each chunk is
     * read from its position to its limit (the buffer itself is not modified) and not kept after it is split.
     * A final line without a terminating LF counts. Parsed one line at a time on the delivering thread.
     */
    public Flux<LoadRecord> read(Flux<ByteBuffer> chunks) {
        Objects.requireNonNull(chunks, "chunks");
        // Prefetch 1: pull one chunk at a time, so demand for one record does not drain the source.
        return lines(chunks)
                .flatMapIterable(lines -> lines, 1)
                .map(line -> {
                    if (line.error() != null) throw line.error();
                    return parser.parse(line.number(), line.bytes());
                });
    }

    /** The lines each chunk completes (and, at the end, the last unterminated one), in order. */
    private Flux<List<LineSplitter.Line>> lines(Flux<ByteBuffer> chunks) {
        return Flux.defer(() -> {
            LineSplitter splitter = new LineSplitter(maxLineBytes);
            ByteBuffer end = ByteBuffer.allocate(0); // identity marker for end of input
            return chunks.concatWith(Mono.just(end)).map(chunk -> chunk == end ? splitter.finish() : splitter.feed(chunk));
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

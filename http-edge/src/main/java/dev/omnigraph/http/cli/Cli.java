package dev.omnigraph.http.cli;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.NotFound;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.omnigraph.storage.root.GraphRoot;
import java.time.Instant;
import java.util.Map;
import picocli.CommandLine.Option;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/** Helpers shared by the verbs. Everything here runs on the CLI's main thread, which may block. */
final class Cli {
    private Cli() {
    }

    /**
     * Opens a root named by path, {@code file://} or {@code s3://} URI (S3 settings from the environment); the run
     * closes the graph when it ends (see {@link OmnigraphCli#opened}).
     */
    static Omnigraph open(OmnigraphCli cli, GraphRoot root, OpenMode mode) {
        return open(cli, root, mode, io.micrometer.observation.ObservationRegistry.NOOP);
    }

    /** As {@link #open(OmnigraphCli, GraphRoot, OpenMode)}, observed on {@code observations} (progress). */
    static Omnigraph open(OmnigraphCli cli, GraphRoot root, OpenMode mode,
                          io.micrometer.observation.ObservationRegistry observations) {
        dev.omnigraph.engine.OmnigraphBuilder builder = Omnigraph.at(root).services(cli.services());
        if (!observations.isNoop()) {
            builder = builder.observationRegistry(observations);
        }
        return cli.opened(CliPolicy.apply(builder, cli.policy, root).open(mode).block());
    }

    /**
     * The items of {@code stream} for a loop on this thread. {@code toIterable} hands each item over under a lock
     * that may wait; that hand-over runs on a bounded-elastic thread, never on the parallel worker that produced the
     * item, where a wait is forbidden (BlockHound fails it mid-hand-over and the loop never sees another signal).
     */
    static <T> Iterable<T> consume(Flux<T> stream) {
        return stream.publishOn(Schedulers.boundedElastic()).toIterable();
    }

    static String read(Path file, String what) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new NotFound("file", file.toString(), what + " file " + file + " does not exist");
        } catch (IOException e) {
            throw new BadRequest("cannot read " + what + " file " + file + ": " + e.getMessage());
        }
    }

    /** Microseconds since the epoch as an ISO instant. */
    static String time(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L).toString();
    }

    /** {@code --query <file>} or {@code -e <source>}: where the .gq source comes from. */
    static final class Source {
        @Option(names = "--query", paramLabel = "<file>", description = "A .gq file holding the query.")
        Path file;

        @Option(names = {"-e", "--query-string"}, paramLabel = "<source>", description = "The .gq source inline.")
        String inline;

        String text() {
            return inline != null ? inline : read(file, "query");
        }
    }

    /** {@code --params <json>} or {@code --params-file <file>}. */
    static final class Params {
        @Option(names = "--params", paramLabel = "<json>", description = "Query parameters as a JSON object.")
        String json;

        @Option(names = "--params-file", paramLabel = "<file>", description = "A file holding the parameters as JSON.")
        Path file;

        static Map<String, Object> of(Params params) {
            if (params == null) return Map.of();
            String text = params.json != null ? params.json : read(params.file, "params");
            return Json.params(Json.parse(text, "--params"), "--params");
        }
    }
}

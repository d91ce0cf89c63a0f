package dev.omnigraph.http.cli;

import dev.omnigraph.engine.MaintenanceOperations;
import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.Shapes;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.nio.file.Path;
import dev.omnigraph.storage.root.GraphRoot;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code omnigraph load <root> --data f.jsonl --mode append|merge|overwrite}: one file, one commit — or, with
 * {@code --chunk-size N}, consecutive commits of N lines each (for files past the per-commit limits), each reported.
 */
@Command(name = "load", description = "Load an NDJSON file into a branch as one commit (or one commit per --chunk-size lines).")
final class LoadCommand implements Callable<Integer> {
    @ParentCommand
    OmnigraphCli cli;

    @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
    GraphRoot root;

    @Option(names = "--data", required = true, paramLabel = "<file>", description = "NDJSON records, one per line.")
    Path data;

    @Option(names = "--mode", required = true, paramLabel = "<mode>", description = "append, merge or overwrite.")
    String mode;

    @Mixin
    WriteFlags flags;

    @Option(names = "--from", paramLabel = "<branch|commit>", description = "Create --branch from this branch or "
            + "commit first when it does not exist (without it the branch must exist).")
    String from;

    /** The graph this run opened (read-write), kept for {@code --index}. */
    private Omnigraph graph;

    /** Whether this run created --branch (reported as branch_created). */
    private boolean branchCreated;

    @Option(names = "--chunk-size", paramLabel = "<lines>", description = "Split the file into consecutive commits of at "
            + "most this many lines (nodes should come before the edges that reference them).")
    Integer chunkSize;

    @Option(names = "--progress", paramLabel = "<auto|plain|json|none>", description = "Progress on stderr: plain "
            + "lines, JSON lines, or none; auto (default) is plain on a terminal and none otherwise.")
    String progress;

    @Option(names = "--index", description = "After loading, build the indexes the schema implies that the branch lacks "
            + "(as `index ensure`: its own commit, none when nothing is missing).")
    boolean index;

    @Override
    public Integer call() {
        Integer loaded = load();
        if (index && loaded == OmnigraphCli.OK) {
            var ensured = graph.maintenance()
                    .ensureIndexes(new MaintenanceOperations.Target(flags.branch, Optional.ofNullable(flags.actor))).block();
            if (flags.json) {
                cli.out.println(Json.text(dev.omnigraph.http.wire.IndexShapes.ensured(ensured)));
            } else {
                IndexCommand.print(cli.out, ensured);
            }
        }
        return loaded;
    }

    private Integer load() {
        LoadMode loadMode = LoadMode.parse(mode);
        if (!java.nio.file.Files.isRegularFile(data)) {
            throw new dev.omnigraph.storage.error.NotFound("file", data.toString(), "data file " + data + " does not exist");
        }
        graph = Cli.open(cli, root, OpenMode.READ_WRITE);
        branchCreated = from != null && graph.branches().ensure(flags.branch, from).block();
        LoadOptions options = flags.actor == null ? LoadOptions.DEFAULT : LoadOptions.DEFAULT.actor(flags.actor);
        if (chunkSize != null) {
            return loadInChunks(graph, loadMode, options);
        }
        if (flags.idempotencyKey != null) options = options.idempotencyKey(flags.idempotencyKey);
        ProgressReporter reporter = new ProgressReporter(ProgressReporter.mode(progress), cli.err, fileSize());
        WriteOutcome outcome;
        try {
            outcome = graph.load(flags.branch, loadMode, data, options, reporter::read).block();
        } catch (RuntimeException failed) {
            reporter.done(null);
            throw failed;
        }
        reporter.done(outcome);
        report(graph, loadMode, outcome, "");
        return OmnigraphCli.OK;
    }

    private long fileSize() {
        try {
            return java.nio.file.Files.size(data);
        } catch (java.io.IOException e) {
            return 0;
        }
    }

    /** Reads the file lazily and loads every {@code chunkSize} lines as one commit; stops at the first failure. */
    private Integer loadInChunks(Omnigraph graph, LoadMode loadMode, LoadOptions options) {
        if (chunkSize < 1) {
            throw new dev.omnigraph.storage.error.BadRequest("--chunk-size must be at least 1, got " + chunkSize);
        }
        if (loadMode == LoadMode.OVERWRITE) {
            throw new dev.omnigraph.storage.error.BadRequest("--chunk-size cannot split an overwrite: each chunk would "
                    + "replace the previous one; load it whole (overwrite has no entity cap)");
        }
        boolean tty = ProgressReporter.stderrIsTerminal() && !flags.json;
        int chunk = 0;
        long lines = 0;
        try (java.io.BufferedReader reader = java.nio.file.Files.newBufferedReader(data, java.nio.charset.StandardCharsets.UTF_8)) {
            java.util.List<String> pending = new java.util.ArrayList<>(chunkSize);
            String line;
            while (true) {
                line = reader.readLine();
                if (line != null) {
                    pending.add(line);
                    lines++;
                }
                if (pending.size() == chunkSize || (line == null && !pending.isEmpty())) {
                    chunk++;
                    byte[] bytes = (String.join("\n", pending) + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8);
                    LoadOptions chunkOptions = flags.idempotencyKey == null ? options : options.idempotencyKey(flags.idempotencyKey + "#" + chunk);
                    WriteOutcome outcome = graph.load(flags.branch, loadMode,
                            reactor.core.publisher.Flux.just(java.nio.ByteBuffer.wrap(bytes)), chunkOptions).block();
                    if (tty) {
                        cli.err.print("\rchunk " + chunk + ": " + lines + " line(s) loaded");
                        cli.err.flush();
                    }
                    report(graph, loadMode, outcome, "chunk " + chunk + " (lines " + (lines - pending.size() + 1) + "-" + lines + "): ");
                    pending.clear();
                }
                if (line == null) {
                    break;
                }
            }
        } catch (java.io.IOException e) {
            throw new dev.omnigraph.storage.error.StorageFault("reading " + data + " failed: " + e.getMessage(), e);
        }
        if (tty) {
            cli.err.println();
        }
        if (!flags.json) {
            cli.out.println("loaded " + lines + " line(s) in " + chunk + " commit(s)");
        }
        return OmnigraphCli.OK;
    }

    private void report(Omnigraph graph, LoadMode loadMode, WriteOutcome outcome, String prefix) {
        if (flags.json) {
            cli.out.println(Json.text(Shapes.load(flags.branch, Optional.ofNullable(from), branchCreated, loadMode, outcome,
                    Optional.ofNullable(flags.actor), Optional.of(graph.location().displayUri()))));
        } else {
            cli.out.println(prefix + (outcome.replayed() ? "replayed (idempotency key already used): " : "")
                    + "loaded " + outcome.affectedNodes() + " node(s) and " + outcome.affectedEdges()
                    + " edge(s) into " + flags.branch + " (" + loadMode.name().toLowerCase(Locale.ROOT) + "): "
                    + outcome.commit().map(GraphCommit::id).map(id -> "commit " + id).orElse("nothing changed"));
        }
    }
}

package dev.omnigraph.http.cli;

import dev.omnigraph.engine.ChangeOperations;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.diff.FeedPage;
import dev.omnigraph.engine.diff.FeedStart;
import dev.omnigraph.http.wire.ChangeShapes;
import dev.omnigraph.http.wire.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.omnigraph.storage.root.GraphRoot;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code omnigraph changes poll|baseline}: the change feed of a branch. {@code poll} prints one page as the HTTP
 * route's JSON ({@code blocks}, then {@code cursor} and {@code caught_up} on the terminal page, or
 * {@code next_page_token}); {@code baseline} prints the branch head as NDJSON and a final resume-cursor record.
 */
@Command(name = "changes", description = "Follow a branch's changes.",
        subcommands = {ChangesCommand.Poll.class, ChangesCommand.Baseline.class})
final class ChangesCommand extends CommandGroup {

    /** Exactly one way to start a poll. */
    static final class Start {
        @Option(names = "--cursor", paramLabel = "<cursor>", description = "Resume from a previous poll's cursor.")
        String cursor;

        @Option(names = "--start", paramLabel = "<now|beginning|after:ID>", description = "Where a new feed begins.")
        String start;

        @Option(names = "--page-token", paramLabel = "<token>", description = "Continue a poll in progress.")
        String pageToken;
    }

    @Command(name = "poll", description = "One page of a branch's changes after a cursor (or a start).")
    static final class Poll implements Callable<Integer> {
        @ParentCommand
        ChangesCommand parent;

        @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
        GraphRoot root;

        @Option(names = "--branch", defaultValue = "main", description = "Branch (default: ${DEFAULT-VALUE}).")
        String branch;

        @ArgGroup(exclusive = true, multiplicity = "0..1")
        Start start = new Start();

        @Mixin
        ChangeFilterOptions filter;

        @Option(names = "--out", paramLabel = "<file>", description = "Write the page to this file instead of stdout.")
        Path out;

        @Option(names = "--json", description = "Accepted for symmetry: the output is always JSON.")
        boolean json;

        @Override
        public Integer call() {
            Omnigraph graph = Cli.open(parent.cli, root, OpenMode.READ_ONLY);
            Start given = start == null ? new Start() : start;
            FeedStart from = FeedStart.of(Optional.ofNullable(given.cursor), Optional.ofNullable(given.start),
                    Optional.ofNullable(given.pageToken));
            FeedPage page = graph.changes().poll(new ChangeOperations.Poll(branch, from, filter.filter(), filter.limit())).block();
            write(parent.cli, out, Json.text(ChangeShapes.feed(page)) + "\n");
            return OmnigraphCli.OK;
        }
    }

    @Command(name = "baseline", description = "The branch head as NDJSON, then {\"baseline\":{snapshot_commit_id, resume_cursor}}.")
    static final class Baseline implements Callable<Integer> {
        @ParentCommand
        ChangesCommand parent;

        @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
        GraphRoot root;

        @Option(names = "--branch", defaultValue = "main", description = "Branch (default: ${DEFAULT-VALUE}).")
        String branch;

        @Mixin
        ChangeFilterOptions filter;

        @Option(names = "--out", paramLabel = "<file>", description = "Write the NDJSON to this file instead of stdout.")
        Path out;

        @Override
        public Integer call() {
            Omnigraph graph = Cli.open(parent.cli, root, OpenMode.READ_ONLY);
            Iterable<String> lines = Cli.consume(graph.changes().baseline(branch, filter.filter()));
            if (out == null) {
                for (String line : lines) parent.cli.out.println(line);
                return OmnigraphCli.OK;
            }
            try (PrintStream file = new PrintStream(Files.newOutputStream(out), false, StandardCharsets.UTF_8)) {
                for (String line : lines) file.println(line);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + out, e);
            }
            return OmnigraphCli.OK;
        }
    }

    static void write(OmnigraphCli cli, Path out, String text) {
        if (out == null) {
            cli.out.print(text);
            return;
        }
        try {
            Files.writeString(out, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + out, e);
        }
    }
}

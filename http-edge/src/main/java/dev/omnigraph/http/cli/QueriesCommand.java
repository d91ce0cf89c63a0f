package dev.omnigraph.http.cli;

import dev.omnigraph.engine.internal.HandleInternals;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.QueryOutput;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.StoredQueries;
import dev.omnigraph.storage.root.GraphRoot;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code omnigraph queries add|list|run|remove}: the graph's stored queries ({@code <root>/__queries/<name>.gq}),
 * the same ones the server lists at {@code GET /queries} and runs at {@code POST /queries/{name}}.
 */
@Command(name = "queries", description = "Register, list, run and remove a graph's stored queries.",
        subcommands = {QueriesCommand.Add.class, QueriesCommand.ListQueries.class, QueriesCommand.Run.class,
                QueriesCommand.Remove.class})
final class QueriesCommand extends CommandGroup {
    @Command(name = "add", description = "Register every query a .gq file declares, each under its own name "
            + "(type-checked against the graph's schema first; nothing is registered if one fails).")
    static final class Add implements Callable<Integer> {
        @ParentCommand
        QueriesCommand parent;

        @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
        GraphRoot root;

        @Parameters(index = "1", paramLabel = "<file>", description = "The .gq file.")
        Path file;

        @Override
        public Integer call() {
            String source = Cli.read(file, "query");
            Omnigraph graph = Cli.open(parent.cli, root, OpenMode.READ_ONLY);
            List<String> names = StoredQueries.add(HandleInternals.of(graph).objectStore(), source, graph.schema().catalog()).block();
            parent.cli.out.println("registered " + String.join(", ", names));
            return OmnigraphCli.OK;
        }
    }

    @Command(name = "list", description = "The stored queries, with their parameters.")
    static final class ListQueries implements Callable<Integer> {
        @ParentCommand
        QueriesCommand parent;

        @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
        GraphRoot root;

        @Option(names = "--json", description = "Print {queries:[{name, tool_name, mutation, params…}]} as JSON.")
        boolean json;

        @Override
        public Integer call() {
            List<StoredQueries.Stored> stored = StoredQueries.list(parent.cli.services().objectStore(root)).block();
            if (json) {
                parent.cli.out.println(Json.text(StoredQueries.listing(stored)));
                return OmnigraphCli.OK;
            }
            for (StoredQueries.Stored s : stored) {
                String params = s.decl().params().stream().map(p -> "$" + p.name() + ": " + p.spelling())
                        .reduce((a, b) -> a + ", " + b).orElse("");
                parent.cli.out.println(s.name() + "(" + params + ")" + (s.decl().isMutation() ? " mutation" : " query"));
            }
            parent.cli.out.println("(" + stored.size() + " stored quer" + (stored.size() == 1 ? "y" : "ies") + ")");
            return OmnigraphCli.OK;
        }
    }

    @Command(name = "run", description = "Run a stored query (a read, or a mutation as one commit).")
    static final class Run implements Callable<Integer> {
        @ParentCommand
        QueriesCommand parent;

        @Parameters(index = "0", paramLabel = "<name>", description = "The stored query.")
        String name;

        @Parameters(index = "1", paramLabel = "<root>", description = "The graph root.")
        GraphRoot root;

        @ArgGroup(exclusive = true, multiplicity = "0..1")
        Cli.Params params;

        @Option(names = "--snapshot", paramLabel = "<commit_id>", description = "Read as of this commit (reads only).")
        String snapshot;

        @Option(names = "--if-commit", paramLabel = "<commit_id>",
                description = "Mutations only: write only if the branch head is this commit (else exit 4).")
        String ifCommit;

        @Mixin
        WriteFlags flags;

        @Override
        public Integer call() {
            OmnigraphCli cli = parent.cli;
            StoredQueries.Stored stored = StoredQueries.get(cli.services().objectStore(root), name).block();
            if (stored.decl().isMutation()) {
                if (snapshot != null) {
                    throw new dev.omnigraph.storage.error.BadRequest("--snapshot is for reads; '" + name + "' is a mutation");
                }
                Omnigraph graph = Cli.open(cli, root, OpenMode.READ_WRITE);
                WriteOutcome outcome = graph.mutate(flags.branch, stored.source(), name, Cli.Params.of(params),
                        flags.mutationOptions(ifCommit)).block();
                MutateCommand.print(cli, flags, name, outcome);
                return OmnigraphCli.OK;
            }
            if (ifCommit != null || flags.idempotencyKey != null) {
                throw new dev.omnigraph.storage.error.BadRequest("--if-commit and --idempotency-key are for mutations; '"
                        + name + "' is a read query");
            }
            ReadTarget target = snapshot != null ? ReadTarget.commit(snapshot) : ReadTarget.branch(flags.branch);
            Omnigraph graph = Cli.open(cli, root, OpenMode.READ_ONLY);
            QueryOutput output = graph.query(target, stored.source(), name, Cli.Params.of(params)).block();
            QueryCommand.print(cli, output, target, flags.json ? QueryCommand.Format.json : QueryCommand.Format.table);
            return OmnigraphCli.OK;
        }
    }

    @Command(name = "remove", description = "Unregister a stored query.")
    static final class Remove implements Callable<Integer> {
        @ParentCommand
        QueriesCommand parent;

        @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
        GraphRoot root;

        @Parameters(index = "1", paramLabel = "<name>", description = "The stored query.")
        String name;

        @Override
        public Integer call() {
            StoredQueries.remove(parent.cli.services().objectStore(root), name).block();
            parent.cli.out.println("removed " + name);
            return OmnigraphCli.OK;
        }
    }
}

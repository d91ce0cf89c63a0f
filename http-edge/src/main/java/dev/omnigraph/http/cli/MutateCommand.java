package dev.omnigraph.http.cli;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.engine.query.QueryDecl;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.QuerySources;
import dev.omnigraph.http.wire.Shapes;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code omnigraph mutate <name> <root> --query f.gq | -e '…'}: one mutation, one commit. With
 * {@code --if-commit} the write lands only if the branch head is still that commit; a lost race exits 4.
 */
@Command(name = "mutate", aliases = "change", description = "Run a mutation as one commit.")
final class MutateCommand implements Callable<Integer> {
    @ParentCommand
    OmnigraphCli cli;

    @Parameters(index = "0", paramLabel = "<name>", description = "The mutation to run (declared in the source).")
    String name;

    @Parameters(index = "1", paramLabel = "<root>", description = "The graph root.")
    Path root;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Cli.Source source;

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    Cli.Params params;

    @Option(names = "--branch", defaultValue = "main", description = "Branch to write (default: ${DEFAULT-VALUE}).")
    String branch;

    @Option(names = "--if-commit", paramLabel = "<commit_id>",
            description = "Write only if the branch head is this commit (else exit 4, nothing written).")
    String ifCommit;

    @Option(names = "--as", paramLabel = "<actor>", description = "Actor recorded on the commit.")
    String actor;

    @Option(names = "--idempotency-key", paramLabel = "<key>", description = "Make the write idempotent: run again "
            + "with the same key and request, it prints the first run's outcome and writes nothing.")
    String idempotencyKey;

    @Option(names = "--json", description = "Print the result (with the commit, null if nothing changed) as JSON.")
    boolean json;

    @Override
    public Integer call() {
        String text = source.text();
        QueryDecl decl = QuerySources.pick(text, name);
        WriteOptions options = WriteOptions.DEFAULT;
        if (actor != null) options = options.actor(actor);
        if (ifCommit != null) options = options.ifGraphCommit(ifCommit);
        if (idempotencyKey != null) options = options.idempotencyKey(idempotencyKey);
        Omnigraph graph = Cli.open(cli, root, OpenMode.READ_WRITE);
        WriteOutcome outcome = graph.mutate(branch, text, decl.name(), Cli.Params.of(params), options).block();
        if (json) {
            cli.out.println(Json.text(Shapes.mutation(branch, decl.name(), outcome, Optional.ofNullable(actor))));
        } else {
            cli.out.println((outcome.replayed() ? "replayed (idempotency key already used): " : "") + decl.name() + " on " + branch + ": " + outcome.affectedNodes() + " node(s), "
                    + outcome.affectedEdges() + " edge(s) affected; "
                    + outcome.commit().map(c -> "commit " + c.id()).orElse("nothing changed (no commit)"));
        }
        return OmnigraphCli.OK;
    }
}

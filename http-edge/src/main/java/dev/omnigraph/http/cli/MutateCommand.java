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
    GraphRoot root;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Cli.Source source;

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    Cli.Params params;

    @Option(names = "--if-commit", paramLabel = "<commit_id>",
            description = "Write only if the branch head is this commit (else exit 4, nothing written).")
    String ifCommit;

    @Mixin
    WriteFlags flags;

    @Override
    public Integer call() {
        String text = source.text();
        QueryDecl decl = QuerySources.pick(text, name);
        WriteOptions options = flags.mutationOptions(ifCommit);
        Omnigraph graph = Cli.open(cli, root, OpenMode.READ_WRITE);
        WriteOutcome outcome = graph.mutate(flags.branch, text, decl.name(), Cli.Params.of(params), options).block();
        print(cli, flags, decl.name(), outcome);
        return OmnigraphCli.OK;
    }

    /** Prints a mutation's outcome: the JSON envelope under --json, else one line. */
    static void print(OmnigraphCli cli, WriteFlags flags, String name, WriteOutcome outcome) {
        if (flags.json) {
            cli.out.println(Json.text(Shapes.mutation(flags.branch, name, outcome, Optional.ofNullable(flags.actor))));
        } else {
            cli.out.println((outcome.replayed() ? "replayed (idempotency key already used): " : "") + name + " on " + flags.branch + ": " + outcome.affectedNodes() + " node(s), "
                    + outcome.affectedEdges() + " edge(s) affected; "
                    + outcome.commit().map(c -> "commit " + c.id()).orElse("nothing changed (no commit)"));
        }
    }
}

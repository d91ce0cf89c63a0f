package dev.omnigraph.http.cli;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.Shapes;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.TableDelta;
import java.nio.file.Path;
import dev.omnigraph.storage.root.GraphRoot;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code omnigraph commit list|show}: the commit history of a branch, or one commit. */
@Command(name = "commit", description = "Inspect commits.", subcommands = {CommitCommand.ListCommits.class, CommitCommand.Show.class, CommitChangesCommand.class})
final class CommitCommand extends CommandGroup {

    @Command(name = "list", description = "Commits reachable from a branch head, newest first.")
    static final class ListCommits implements Callable<Integer> {
        @ParentCommand
        CommitCommand parent;

        @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
        GraphRoot root;

        @Option(names = "--branch", defaultValue = "main", description = "Branch (default: ${DEFAULT-VALUE}).")
        String branch;

        @Option(names = "--json", description = "Print {commits:[…]} as JSON.")
        boolean json;

        @Override
        public Integer call() {
            OmnigraphCli cli = parent.cli;
            Omnigraph graph = Cli.open(cli, root, OpenMode.READ_ONLY);
            List<GraphCommit> commits = graph.commits(branch).collectList().block();
            if (json) {
                cli.out.println(Json.text(Shapes.commits(commits)));
                return OmnigraphCli.OK;
            }
            for (GraphCommit c : commits) {
                cli.out.println(c.id() + "  " + Cli.time(c.createdAtMicros()) + "  " + c.operation()
                        + c.actorId().map(a -> "  by " + a).orElse(""));
            }
            return OmnigraphCli.OK;
        }
    }

    @Command(name = "show", description = "One commit: parents, actor, time, and the datasets it moved.")
    static final class Show implements Callable<Integer> {
        @ParentCommand
        CommitCommand parent;

        @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
        GraphRoot root;

        @Parameters(index = "1", paramLabel = "<commit_id>", description = "The commit.")
        String id;

        @Option(names = "--json", description = "Print the commit as JSON.")
        boolean json;

        @Override
        public Integer call() {
            OmnigraphCli cli = parent.cli;
            Omnigraph graph = Cli.open(cli, root, OpenMode.READ_ONLY);
            GraphCommit c = graph.commit(id).block();
            if (json) {
                cli.out.println(Json.text(Shapes.commit(c)));
                return OmnigraphCli.OK;
            }
            cli.out.println("commit    " + c.id());
            cli.out.println("branch    " + c.branchName());
            cli.out.println("parents   " + (c.parentIds().isEmpty() ? "-" : String.join(" ", c.parentIds())));
            cli.out.println("actor     " + c.actorId().orElse("-"));
            cli.out.println("created   " + Cli.time(c.createdAtMicros()));
            cli.out.println("operation " + c.operation());
            cli.out.println("manifest  v" + c.manifestVersion());
            for (TableDelta d : c.deltas()) {
                cli.out.println("  " + d.tableKey() + "  v" + d.fromVersion() + " -> v" + d.toVersion());
            }
            return OmnigraphCli.OK;
        }
    }
}

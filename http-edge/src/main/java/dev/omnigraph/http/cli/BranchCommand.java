package dev.omnigraph.http.cli;

import dev.omnigraph.engine.BranchOperations;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.branch.BranchResult;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.Shapes;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.GraphBranches;
import java.nio.file.Path;
import dev.omnigraph.storage.root.GraphRoot;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code omnigraph branch create|list|delete|merge}: graph branches, with the HTTP API's JSON shapes under {@code --json}. */
@Command(name = "branch", description = "Create, list and delete branches.",
        subcommands = {BranchCommand.Create.class, BranchCommand.ListBranches.class, BranchCommand.Delete.class,
                BranchMergeCommand.class})
final class BranchCommand extends CommandGroup {

    @Command(name = "create", description = "Create a branch (lazy: it reads its parent's tables until it writes them).")
    static final class Create implements Callable<Integer> {
        @ParentCommand
        BranchCommand parent;

        @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
        GraphRoot root;

        @Parameters(index = "1", paramLabel = "<name>", description = "The new branch.")
        String name;

        @Option(names = "--from", paramLabel = "<branch|commit>", description = "Fork point: a branch or a commit id (default: main).")
        String from;

        @Option(names = "--json", description = "Print {uri, from, name, actor_id} as JSON.")
        boolean json;

        @Override
        public Integer call() {
            OmnigraphCli cli = parent.cli;
            Omnigraph graph = Cli.open(cli, root, OpenMode.READ_WRITE);
            String source = Optional.ofNullable(from).orElse(GraphBranches.MAIN);
            BranchResult.Created created = graph.branches().create(BranchOperations.Create.of(name).from(source)).block();
            if (json) {
                cli.out.println(Json.text(Shapes.branchCreated(graph.location().displayUri(), source, name, Optional.empty())));
            } else {
                cli.out.println("created branch " + created.identity().name() + " from " + source);
            }
            return OmnigraphCli.OK;
        }
    }

    @Command(name = "list", description = "Branch names, main first.")
    static final class ListBranches implements Callable<Integer> {
        @ParentCommand
        BranchCommand parent;

        @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
        GraphRoot root;

        @Option(names = "--json", description = "Print {branches:[…]} as JSON.")
        boolean json;

        @Override
        public Integer call() {
            OmnigraphCli cli = parent.cli;
            Omnigraph graph = Cli.open(cli, root, OpenMode.READ_ONLY);
            List<BranchIdentity> branches = graph.branches().list().block();
            if (json) {
                ObjectNode out = Json.object();
                var names = out.putArray("branches");
                branches.forEach(branch -> names.add(branch.name()));
                cli.out.println(Json.text(out));
            } else {
                // Each branch with its fork point: the parent branch and the parent's manifest version.
                branches.forEach(branch -> cli.out.println(branch.name().equals(GraphBranches.MAIN) ? branch.name()
                        : branch.name() + "  (from " + branch.parent().orElse(GraphBranches.MAIN) + "@" + branch.parentVersion() + ")"));
            }
            return OmnigraphCli.OK;
        }
    }

    @Command(name = "delete", description = "Delete a branch (never main, never one other branches fork from).")
    static final class Delete implements Callable<Integer> {
        @ParentCommand
        BranchCommand parent;

        @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
        GraphRoot root;

        @Parameters(index = "1", paramLabel = "<name>", description = "The branch to delete.")
        String name;

        @Option(names = "--json", description = "Print {uri, name, actor_id} as JSON.")
        boolean json;

        @Override
        public Integer call() {
            OmnigraphCli cli = parent.cli;
            Omnigraph graph = Cli.open(cli, root, OpenMode.READ_WRITE);
            BranchResult.Deleted deleted = graph.branches().delete(name).block();
            if (json) {
                cli.out.println(Json.text(Shapes.branchDeleted(graph.location().displayUri(), name, Optional.empty(),
                        deleted.leftovers())));
            } else {
                cli.out.println("deleted branch " + name + (deleted.leftovers().isEmpty() ? ""
                        : "; forks left for cleanup on " + String.join(", ", deleted.leftovers())));
            }
            return OmnigraphCli.OK;
        }
    }
}

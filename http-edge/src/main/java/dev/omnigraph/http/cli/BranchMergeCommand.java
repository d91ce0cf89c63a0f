package dev.omnigraph.http.cli;

import dev.omnigraph.engine.BranchOperations;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.merge.MergeResult;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.MergeShapes;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code omnigraph branch merge <root> <source> [--into <target>] [--delete-branch] [--json]}. A refused source
 * delete is a warning on stderr; the merge still succeeded (exit 0).
 */
@Command(name = "merge", description = "Merge a branch into another (default main) as one three-way commit.")
final class BranchMergeCommand implements Callable<Integer> {
    @ParentCommand
    BranchCommand parent;

    @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
    GraphRoot root;

    @Parameters(index = "1", paramLabel = "<source>", description = "The branch to merge (never modified).")
    String source;

    @Option(names = "--into", paramLabel = "<target>", defaultValue = "main", description = "The branch that receives "
            + "the merge commit (default: ${DEFAULT-VALUE}).")
    String target;

    @Option(names = "--delete-branch", description = "Delete the source after a successful merge.")
    boolean deleteBranch;

    @Option(names = "--as", paramLabel = "<actor>", description = "Actor recorded on the merge commit.")
    String actor;

    @picocli.CommandLine.Mixin
    ProgressOption progress;

    @Option(names = "--json", description = "Print {source, target, outcome, actor_id, commit, …} as JSON.")
    boolean json;

    @Override
    public Integer call() {
        OmnigraphCli cli = parent.cli;
        Omnigraph graph = Cli.open(cli, root, OpenMode.READ_WRITE, progress.registry("branch merge", cli.err));
        Optional<String> actorId = Optional.ofNullable(actor);
        MergeResult result = graph.branches().merge(new BranchOperations.Merge(source, target, deleteBranch, actorId)).block();
        result.branchDeleteError().ifPresent(error -> cli.err.println("warning: branch " + source
                + " was merged but not deleted: " + error));
        if (json) {
            cli.out.println(Json.text(MergeShapes.result(result, actorId)));
        } else {
            cli.out.println(result.outcome().wireName() + ": " + source + " into " + target
                    + result.commit().map(commit -> " (commit " + commit.id() + ")").orElse("")
                    + (result.branchDeleted().orElse(false) ? "; deleted branch " + source : ""));
        }
        return OmnigraphCli.OK;
    }
}

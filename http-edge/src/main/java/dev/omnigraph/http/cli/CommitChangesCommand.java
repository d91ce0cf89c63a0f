package dev.omnigraph.http.cli;

import dev.omnigraph.engine.ChangeOperations;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.diff.CommitChanges;
import dev.omnigraph.engine.diff.EntityChange;
import dev.omnigraph.http.wire.ChangeShapes;
import dev.omnigraph.http.wire.Json;
import java.nio.file.Path;
import dev.omnigraph.storage.root.GraphRoot;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code omnigraph commit changes <root> <id>}: one page of a commit's entity changes against its first parent. */
@Command(name = "changes", description = "A commit's entity changes against its first parent (one page).")
final class CommitChangesCommand implements Callable<Integer> {
    @ParentCommand
    CommitCommand parent;

    @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
    GraphRoot root;

    @Parameters(index = "1", paramLabel = "<commit_id>", description = "The commit.")
    String id;

    @Mixin
    ChangeFilterOptions filter;

    @Option(names = "--page-token", paramLabel = "<token>", description = "Continue from the previous page.")
    String pageToken;

    @Option(names = "--json", description = "Print {cause, changes, next_page_token?} as JSON.")
    boolean json;

    @Override
    public Integer call() {
        OmnigraphCli cli = parent.cli;
        Omnigraph graph = Cli.open(cli, root, OpenMode.READ_ONLY);
        CommitChanges page = graph.changes().commit(new ChangeOperations.CommitPage(id, filter.filter(),
                        Optional.ofNullable(pageToken), filter.limit()))
                .block();
        if (json) {
            cli.out.println(Json.text(ChangeShapes.commitChanges(page)));
            return OmnigraphCli.OK;
        }
        for (EntityChange c : page.changes()) {
            String endpoints = c.after().or(c::before).flatMap(EntityChange.Image::endpoints)
                    .map(e -> "  (" + e.from() + " -> " + e.to() + ")").orElse("");
            cli.out.println(c.op().wireName() + "  " + c.kind() + " " + c.typeName() + "  " + c.id() + endpoints);
        }
        page.nextPageToken().ifPresent(token -> cli.out.println("next page: --page-token " + token));
        return OmnigraphCli.OK;
    }
}

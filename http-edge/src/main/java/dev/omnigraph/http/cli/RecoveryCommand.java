package dev.omnigraph.http.cli;

import dev.omnigraph.engine.internal.HandleInternals;
import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.Shapes;
import dev.omnigraph.recovery.RecoveryRecord;
import dev.omnigraph.recovery.Sidecar;
import java.nio.file.Path;
import dev.omnigraph.storage.root.GraphRoot;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code omnigraph recovery list <root>}: the recovery audit log, oldest first; {@code omnigraph recovery run <root>}:
 * resolves pending sidecars now (what a {@code RecoveryRequired} error points to).
 */
@Command(name = "recovery", description = "Inspect or run recoveries of interrupted writes.",
        subcommands = {RecoveryCommand.ListRecoveries.class, RecoveryCommand.RunRecovery.class})
final class RecoveryCommand extends CommandGroup {

    @Command(name = "list", description = "What recovery did with each interrupted write, oldest first.")
    static final class ListRecoveries implements Callable<Integer> {
        @ParentCommand
        RecoveryCommand parent;

        @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
        GraphRoot root;

        @Option(names = "--json", description = "Print {recoveries:[…]} as JSON.")
        boolean json;

        @Override
        public Integer call() {
            OmnigraphCli cli = parent.cli;
            Omnigraph graph = Cli.open(cli, root, OpenMode.READ_ONLY);
            List<RecoveryRecord> records = graph.maintenance().recoveries().collectList().block();
            print(cli, records, json, "no recoveries recorded");
            return OmnigraphCli.OK;
        }
    }

    /**
     * Opens the graph read-write, whose open-time sweep rolls every pending sidecar forward or back, and prints what
     * it did. The single-writer lock refuses this while a server holds the graph: restarting the server does the same.
     */
    @Command(name = "run", description = "Resolve pending recovery sidecars now (a read-write open rolls each "
            + "interrupted write forward or back); prints what recovery did.")
    static final class RunRecovery implements Callable<Integer> {
        @ParentCommand
        RecoveryCommand parent;

        @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
        GraphRoot root;

        @Option(names = "--json", description = "Print {recoveries:[…]} (this run's) as JSON.")
        boolean json;

        @Override
        public Integer call() {
            OmnigraphCli cli = parent.cli;
            Set<String> pending = HandleInternals.of(Cli.open(cli, root, OpenMode.READ_ONLY)).pendingSidecars()
                    .map(Sidecar::operationId).collect(Collectors.toSet()).block();
            Omnigraph graph = Cli.open(cli, root, OpenMode.READ_WRITE);
            List<RecoveryRecord> done = graph.maintenance().recoveries().filter(r -> pending.contains(r.operationId()))
                    .collectList().block();
            print(cli, done, json, "nothing to recover");
            return OmnigraphCli.OK;
        }
    }

    private static void print(OmnigraphCli cli, List<RecoveryRecord> records, boolean json, String none) {
        if (json) {
            cli.out.println(Json.text(Shapes.recoveries(records)));
            return;
        }
        if (records.isEmpty()) cli.out.println(none);
        for (RecoveryRecord r : records) {
            JsonNode shape = Shapes.recovery(r);
            cli.out.println(r.operationId() + "  " + r.createdAt() + "  " + shape.path("kind").asText()
                    + "  " + r.sidecarWriterKind() + r.graphCommitId().map(id -> "  commit " + id).orElse(""));
        }
    }
}

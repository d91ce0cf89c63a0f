package dev.omnigraph.http.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.Shapes;
import dev.omnigraph.recovery.RecoveryRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code omnigraph recovery list <root>}: the recovery audit log, oldest first. */
@Command(name = "recovery", description = "Inspect recoveries of interrupted writes.",
        subcommands = RecoveryCommand.ListRecoveries.class)
final class RecoveryCommand implements Callable<Integer> {
    @ParentCommand
    OmnigraphCli cli;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(cli.err);
        return OmnigraphCli.ERROR;
    }

    @Command(name = "list", description = "What recovery did with each interrupted write, oldest first.")
    static final class ListRecoveries implements Callable<Integer> {
        @ParentCommand
        RecoveryCommand parent;

        @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
        Path root;

        @Option(names = "--json", description = "Print {recoveries:[…]} as JSON.")
        boolean json;

        @Override
        public Integer call() {
            OmnigraphCli cli = parent.cli;
            Omnigraph graph = Cli.open(cli, root, OpenMode.READ_ONLY);
            List<RecoveryRecord> records = graph.recoveries().collectList().block();
            if (json) {
                cli.out.println(Json.text(Shapes.recoveries(records)));
                return OmnigraphCli.OK;
            }
            if (records.isEmpty()) cli.out.println("no recoveries recorded");
            for (RecoveryRecord r : records) {
                JsonNode shape = Shapes.recovery(r);
                cli.out.println(r.operationId() + "  " + r.createdAt() + "  " + shape.path("kind").asText()
                        + "  " + r.sidecarWriterKind() + r.graphCommitId().map(id -> "  commit " + id).orElse(""));
            }
            return OmnigraphCli.OK;
        }
    }
}

package dev.omnigraph.http.cli;

import dev.omnigraph.engine.MaintenanceOperations;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.maintain.Repair;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.MaintenanceShapes;
import java.nio.file.Path;
import dev.omnigraph.storage.root.GraphRoot;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code omnigraph repair <root> [--confirm] [--force] [--json]}: lists tables whose live HEAD is not their
 * published pin with no recovery sidecar covering them, classified from their history. {@code --confirm}
 * publishes compaction-only drift; {@code --force --confirm} any drift ahead of its pin. Exits 1 while drift remains.
 */
@Command(name = "repair", description = "Classify (and with --confirm, publish) table versions no tracked write published.")
final class RepairCommand implements Callable<Integer> {
    @ParentCommand
    OmnigraphCli cli;

    @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
    GraphRoot root;

    @Option(names = "--confirm", description = "Publish verified (compaction-only) drift forward.")
    boolean confirm;

    @Option(names = "--force", description = "With --confirm: publish unverified drift too.")
    boolean force;

    @Option(names = "--json", description = "Print {drift:[{branch, table_key, published_version, head_version, kind, operations, published}]}.")
    boolean json;

    @Override
    public Integer call() {
        Omnigraph graph = Cli.open(cli, root, confirm ? OpenMode.READ_WRITE : OpenMode.READ_ONLY);
        List<Repair.Drift> drifts = graph.maintenance().repair(MaintenanceOperations.RepairDrift.of(confirm, force)).block();
        boolean remaining = drifts.stream().anyMatch(drift -> !drift.publishedNow());
        if (json) {
            cli.out.println(Json.text(MaintenanceShapes.repair(drifts)));
            return remaining ? OmnigraphCli.ERROR : OmnigraphCli.OK;
        }
        if (drifts.isEmpty()) {
            cli.out.println("no drift: every table's HEAD is its published pin");
            return OmnigraphCli.OK;
        }
        for (Repair.Drift drift : drifts) {
            cli.out.println(drift.branch() + "  " + drift.tableKey() + "  published " + drift.published() + "  HEAD "
                    + drift.head() + "  " + MaintenanceShapes.kind(drift.kind())
                    + (drift.operations().isEmpty() ? "" : "  " + String.join(",", drift.operations()))
                    + (drift.publishedNow() ? "  published" : ""));
        }
        if (remaining) {
            cli.err.println(confirm ? "drift remains: unverified drift is published only with --force --confirm; "
                    + "a HEAD behind its pin cannot be published"
                    : "preview only: --confirm publishes verified drift, --force --confirm any drift ahead of its pin");
        }
        return remaining ? OmnigraphCli.ERROR : OmnigraphCli.OK;
    }
}

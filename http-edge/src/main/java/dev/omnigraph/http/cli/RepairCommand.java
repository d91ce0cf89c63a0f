package dev.omnigraph.http.cli;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.write.Repair;
import java.nio.file.Path;
import dev.omnigraph.storage.root.GraphRoot;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code omnigraph repair <root> [--confirm]}: lists tables whose live HEAD is not their published pin with no
 * recovery sidecar covering them; {@code --confirm} restores each to its pin and publishes. Exits 1 when drift
 * remains (previewed, or behind its pin and so not restorable).
 */
@Command(name = "repair", description = "Find (and with --confirm, undo) table versions no tracked write published.")
final class RepairCommand implements Callable<Integer> {
    @ParentCommand
    OmnigraphCli cli;

    @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
    GraphRoot root;

    @Option(names = "--confirm", description = "Restore drifted tables to their pins and publish.")
    boolean confirm;

    @Option(names = "--json", description = "Print {drift:[{branch, table_key, published_version, head_version, restored}]}.")
    boolean json;

    @Override
    public Integer call() {
        Omnigraph graph = Cli.open(cli, root, confirm ? OpenMode.READ_WRITE : OpenMode.READ_ONLY);
        List<Repair.Drift> drifts = graph.repair(confirm).block();
        boolean remaining = drifts.stream().anyMatch(drift -> !drift.restored());
        if (json) {
            var report = dev.omnigraph.http.wire.Json.object();
            var list = report.putArray("drift");
            drifts.forEach(drift -> list.addObject().put("branch", drift.branch()).put("table_key", drift.tableKey())
                    .put("published_version", drift.published()).put("head_version", drift.head())
                    .put("restored", drift.restored()));
            cli.out.println(dev.omnigraph.http.wire.Json.text(report));
            return remaining ? OmnigraphCli.ERROR : OmnigraphCli.OK;
        }
        if (drifts.isEmpty()) {
            cli.out.println("no drift: every table's HEAD is its published pin");
            return OmnigraphCli.OK;
        }
        for (Repair.Drift drift : drifts) {
            cli.out.println(drift.branch() + "  " + drift.tableKey() + "  published " + drift.published() + "  HEAD "
                    + drift.head() + (drift.restored() ? "  restored" : ""));
        }
        if (remaining && !confirm) {
            cli.err.println("run again with --confirm to restore these tables to their published pins");
        }
        return remaining ? OmnigraphCli.ERROR : OmnigraphCli.OK;
    }
}

package dev.omnigraph.http.cli;

import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.cleanup.CleanupOptions;
import dev.omnigraph.engine.cleanup.CleanupReport;
import dev.omnigraph.http.wire.Json;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code omnigraph cleanup <root> [--keep N] [--older-than D] [--confirm] [--json]}: version GC. Without
 * {@code --confirm} it only reports the versions, files and bytes that would go (and opens the graph read-only).
 */
@Command(name = "cleanup", description = "Delete table versions (and the files only they use) outside the retention"
        + " rule: the newest --keep commits and every commit younger than --older-than stay readable on every branch.")
final class CleanupCommand implements Callable<Integer> {
    @ParentCommand
    OmnigraphCli cli;

    @Parameters(index = "0", paramLabel = "<root>", description = "The graph root: a directory, file:// or s3:// URI.")
    GraphRoot root;

    @Option(names = "--keep", paramLabel = "N", description = "Keep the newest N commits of every branch (10 recommended).")
    Integer keep;

    @Option(names = "--older-than", paramLabel = "D", description = "Keep every commit younger than D (30s, 15m, 12h, 7d, 2w).")
    String olderThan;

    @Option(names = "--confirm", description = "Delete; without it nothing is deleted and the report is a preview.")
    boolean confirm;

    @picocli.CommandLine.Mixin
    ProgressOption progress;

    @Option(names = "--json", description = "Print {confirmed, versions, files, bytes, forks:[location@name], tables:[{location, versions, files, bytes}]}.")
    boolean json;

    @Override
    public Integer call() {
        CleanupOptions options = CleanupOptions.of(keep == null ? OptionalInt.empty() : OptionalInt.of(keep),
                Optional.ofNullable(olderThan).map(text -> CleanupOptions.parseAge("--older-than", text)), confirm);
        Omnigraph graph = Cli.open(cli, root, confirm ? OpenMode.READ_WRITE : OpenMode.READ_ONLY, progress.registry("cleanup", cli.err));
        CleanupReport report = graph.maintenance().cleanup(options).block();
        if (json) {
            var body = Json.object().put("confirmed", report.confirmed()).put("versions", report.versions())
                    .put("files", report.files()).put("bytes", report.bytes());
            report.forks().forEach(body.putArray("forks")::add);
            var tables = body.putArray("tables");
            report.tables().forEach(table -> tables.addObject().put("location", table.location())
                    .put("versions", table.versions()).put("files", table.files()).put("bytes", table.bytes()));
            cli.out.println(Json.text(body));
            return OmnigraphCli.OK;
        }
        for (CleanupReport.TableCleanup table : report.tables()) {
            cli.out.println(table.location() + "  " + table.versions() + " version(s)  " + table.files() + " file(s)  "
                    + table.bytes() + " bytes");
        }
        report.forks().forEach(fork -> cli.out.println(fork + "  orphaned table fork"));
        cli.out.println((report.confirmed() ? "removed " : "would remove ") + report.versions() + " version(s), "
                + report.files() + " file(s), " + report.bytes() + " bytes, " + report.forks().size() + " orphaned fork(s)");
        if (!report.confirmed() && report.versions() + report.files() + report.forks().size() > 0) {
            cli.err.println("run again with --confirm to delete them");
        }
        return OmnigraphCli.OK;
    }
}

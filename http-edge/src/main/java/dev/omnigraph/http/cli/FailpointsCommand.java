package dev.omnigraph.http.cli;

import dev.omnigraph.storage.FailpointCatalog;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/**
 * {@code omnigraph failpoints}: every registered failpoint, one per line, grouped by writer, so crash tests run
 * from outside the suite can iterate them (arm one with {@code OMNIGRAPH_FAILPOINTS=name=exit}).
 */
@Command(name = "failpoints", description = "List every failpoint, grouped by writer.")
final class FailpointsCommand implements Callable<Integer> {
    @ParentCommand
    OmnigraphCli cli;

    @picocli.CommandLine.Option(names = "--json", description = "Print {writer: [names]} as JSON.")
    boolean json;

    @Override
    public Integer call() {
        if (json) {
            var report = dev.omnigraph.http.wire.Json.object();
            FailpointCatalog.byWriter().forEach((writer, names) -> names.forEach(report.putArray(writer)::add));
            cli.out.println(dev.omnigraph.http.wire.Json.text(report));
            return OmnigraphCli.OK;
        }
        for (Map.Entry<String, List<String>> writer : FailpointCatalog.byWriter().entrySet()) {
            cli.out.println("# " + writer.getKey());
            writer.getValue().forEach(cli.out::println);
        }
        return OmnigraphCli.OK;
    }
}

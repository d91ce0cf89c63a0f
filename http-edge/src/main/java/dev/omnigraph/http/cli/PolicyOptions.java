package dev.omnigraph.http.cli;

import dev.omnigraph.http.server.ServerPolicy;
import dev.omnigraph.storage.error.BadRequest;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/** {@code serve}'s authorization flags: a server-wide bundle and per-graph bundles. */
final class PolicyOptions {
    @Option(names = "--policy", paramLabel = "<bundle>", description = "Policy bundle (YAML, compiled to Cedar) for "
            + "every graph without a bundle of its own and for graph_list; needs tokens. Reloaded on file change or "
            + "SIGHUP; a bad bundle keeps the previous one. Without any bundle every authenticated caller may do anything.")
    Path serverWide;

    @Option(names = "--graph-policy", paramLabel = "<graph_id>=<bundle>", description = "A bundle for one graph "
            + "(repeatable); it replaces --policy for that graph.")
    List<String> perGraph = List.of();

    ServerPolicy load() {
        Map<String, Path> graphs = new LinkedHashMap<>();
        for (String entry : perGraph) {
            int eq = entry.indexOf('=');
            if (eq <= 0 || eq == entry.length() - 1) {
                throw new BadRequest("--graph-policy takes <graph_id>=<bundle>, got '" + entry + "'");
            }
            if (graphs.put(entry.substring(0, eq), Path.of(entry.substring(eq + 1))) != null) {
                throw new BadRequest("--graph-policy names graph '" + entry.substring(0, eq) + "' twice");
            }
        }
        if (serverWide == null && graphs.isEmpty()) return ServerPolicy.none();
        return ServerPolicy.load(Optional.ofNullable(serverWide), graphs);
    }
}

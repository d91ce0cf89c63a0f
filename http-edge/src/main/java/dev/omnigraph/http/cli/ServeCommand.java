package dev.omnigraph.http.cli;

import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.http.server.BearerTokens;
import dev.omnigraph.http.server.OmnigraphServer;
import dev.omnigraph.http.server.ServerLimits;
import java.io.PrintStream;
import dev.omnigraph.storage.root.GraphRoot;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code omnigraph serve <dir-or-root>}: the HTTP API until interrupted (Ctrl-C / SIGTERM), then a graceful
 * shutdown that lets in-flight requests finish.
 */
@Command(name = "serve", description = "Serve a graph root, or a directory of graph roots, over HTTP.")
final class ServeCommand implements Callable<Integer> {
    @ParentCommand
    OmnigraphCli cli;

    @Parameters(index = "0", arity = "0..1", paramLabel = "<dir-or-root>",
            description = "A graph root (a path, file:// or s3:// URI; served at / and /graphs/<name>/) or a local "
                    + "directory of graph roots.")
    GraphRoot root;

    @Option(names = "--root", paramLabel = "<dir>", description = "A directory of graph roots, each served at /graphs/<name>/.")
    Path directory;

    @Option(names = "--graph", paramLabel = "<root>", description = "One graph root (a path, file:// or s3:// URI), "
            + "served at / and at /graphs/<name>/.")
    GraphRoot graph;

    @Option(names = "--bind", paramLabel = "<host:port>", description = "Address and port to bind, e.g. 127.0.0.1:8080 "
            + "(overrides --host and --port).")
    String bind;

    @Option(names = "--metrics-bind", paramLabel = "<host:port>", description = "Also serve GET /metrics (Prometheus "
            + "text) without auth on this address, for a scraper; on the main address it needs a token like any route.")
    String metricsBind;

    @Option(names = "--host", defaultValue = OmnigraphServer.LOOPBACK,
            description = "Address to bind (default: ${DEFAULT-VALUE}; other hosts need tokens).")
    String host;

    @Option(names = "--port", defaultValue = "8080", description = "Port (default: ${DEFAULT-VALUE}; 0 picks a free one).")
    int port;

    @Option(names = "--tokens-file", paramLabel = "<file>",
            description = "Bearer tokens, one 'token=actor' per line (else $" + BearerTokens.ENV + ").")
    Path tokensFile;

    @Option(names = "--shutdown-grace", defaultValue = "30", paramLabel = "<seconds>",
            description = "How long shutdown waits for in-flight requests (default: ${DEFAULT-VALUE}).")
    long graceSeconds;

    @Option(names = "--read-timeout", defaultValue = "30", paramLabel = "<seconds>",
            description = "A request head must arrive within this of its first byte, and a body may pause no longer "
                    + "(default: ${DEFAULT-VALUE}).")
    long readTimeoutSeconds;

    @Option(names = "--idle-timeout", defaultValue = "60", paramLabel = "<seconds>",
            description = "Close a connection with no request in progress after this (default: ${DEFAULT-VALUE}).")
    long idleTimeoutSeconds;

    @Option(names = "--max-connections", defaultValue = "1024", paramLabel = "<n>",
            description = "Open connections beyond this are answered 503 and closed (default: ${DEFAULT-VALUE}).")
    int maxConnections;

    @picocli.CommandLine.Mixin
    PolicyOptions policy;

    @Option(names = "--json", description = "Print the start-up banner as JSON.")
    boolean json;

    @Option(names = "--log-format", defaultValue = "text", paramLabel = "<text|json>", description = "Log lines on "
            + "stderr as text, or as one JSON object each for a log shipper (default: ${DEFAULT-VALUE}).")
    String logFormat;

    @Option(names = "--log-level", defaultValue = "info", paramLabel = "<level>", description = "The engine's and "
            + "server's log level: info logs one line per request, write and recovery (default: ${DEFAULT-VALUE}).")
    String logLevel;

    @picocli.CommandLine.ArgGroup(exclusive = false, multiplicity = "0..1", heading = "Budget of every read query:%n")
    QueryLimitOptions queryLimits;

    @picocli.CommandLine.ArgGroup(exclusive = false, multiplicity = "0..1", heading = "Several servers on one root:%n")
    ScaleOutOptions scaleOut;

    @Override
    public Integer call() {
        BearerTokens tokens = tokensFile != null ? BearerTokens.fromFile(tokensFile, "--tokens-file")
                : BearerTokens.fromEnvironment(System.getenv(BearerTokens.ENV));
        LogSettings logs = LogSettings.parse(logFormat, logLevel);
        GraphRoot served = served();
        if (bind != null) {
            java.net.InetSocketAddress address = hostPort("--bind", bind);
            host = address.getHostString();
            port = address.getPort();
        }
        OmnigraphServer.Config config = new OmnigraphServer.Config(served, host, port, tokens, limits());
        if (metricsBind != null) {
            config = config.withOpenMetrics(hostPort("--metrics-bind", metricsBind));
        }
        config = config.withQueryLimits(QueryLimitOptions.of(queryLimits, config.queryLimits()))
                .withScaleOut(ScaleOutOptions.of(scaleOut));
        logs.apply();
        return serve(cli.services(), config, policy.load(), cli.out, json);
    }

    /** {@code host:port} as an unresolved address; a typed error naming {@code option} otherwise. */
    private static java.net.InetSocketAddress hostPort(String option, String value) {
        int colon = value.lastIndexOf(':');
        if (colon <= 0 || colon == value.length() - 1) {
            throw new dev.omnigraph.storage.error.BadRequest(option + " takes host:port, got '" + value + "'");
        }
        try {
            return java.net.InetSocketAddress.createUnresolved(value.substring(0, colon),
                    Integer.parseInt(value.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new dev.omnigraph.storage.error.BadRequest(option + " port must be a number, got '" + value + "'");
        } catch (IllegalArgumentException e) {
            throw new dev.omnigraph.storage.error.BadRequest(option + " port is out of range: '" + value + "'");
        }
    }

    private ServerLimits limits() {
        if (graceSeconds < 0 || readTimeoutSeconds < 1 || idleTimeoutSeconds < 1 || maxConnections < 1) {
            throw new dev.omnigraph.storage.error.BadRequest("--shutdown-grace must be 0 or more; --read-timeout, "
                    + "--idle-timeout and --max-connections must be at least 1");
        }
        return ServerLimits.DEFAULT.withShutdownGrace(Duration.ofSeconds(graceSeconds))
                .withTimeouts(Duration.ofSeconds(readTimeoutSeconds), Duration.ofSeconds(idleTimeoutSeconds))
                .withMaxConnections(maxConnections);
    }

    /** Exactly one of the positional root, --root and --graph names what to serve. */
    private GraphRoot served() {
        java.util.List<GraphRoot> given = java.util.stream.Stream.of(root, directory == null ? null : new GraphRoot.Local(directory), graph)
                .filter(java.util.Objects::nonNull).toList();
        if (given.size() != 1) {
            throw new dev.omnigraph.storage.error.BadRequest("serve needs exactly one of <dir-or-root>, --root <dir> or --graph <root>");
        }
        return given.get(0);
    }

    /** Starts the server, prints where it listens, and blocks this (main) thread until shutdown or interruption. */
    static int serve(StorageServices services, OmnigraphServer.Config config, PrintStream out, boolean json) {
        return serve(services, config, dev.omnigraph.http.server.ServerPolicy.none(), out, json);
    }

    static int serve(StorageServices services, OmnigraphServer.Config config,
                     dev.omnigraph.http.server.ServerPolicy policy, PrintStream out, boolean json) {
        OmnigraphServer server = OmnigraphServer.start(services, config, policy).block();
        dev.omnigraph.http.server.PolicyReloader reloader = dev.omnigraph.http.server.PolicyReloader.start(policy)
                .onHangup();
        // A refused reload is logged as a warning; an applied one is news for the operator too.
        policy.onReload(reload -> {
            if (reload.applied()) out.println(reload.message());
        });
        if (json) {
            out.println(server.describe());
        } else {
            String url = server.baseUrl();
            out.println("omnigraph serving " + server.root()
                    + server.singleGraphId().map(id -> " (graph '" + id + "')").orElse(" (directory of graphs)")
                    + " at " + url);
            out.println(server.authEnabled() ? "auth: bearer tokens required"
                    : "auth: off (no tokens configured), so listening on loopback only");
            out.println(policy.enabled() ? "authorization: policy enforced (reloaded on file change or SIGHUP)"
                    : "authorization: none (every authenticated caller may do anything; see serve --policy)");
            String auth = server.authEnabled() ? " -H 'Authorization: Bearer <token>'" : "";
            out.println("try:  curl" + auth + " " + url + server.singleGraphId().map(id -> "/snapshot").orElse("/graphs"));
            out.println("stop: Ctrl-C (in-flight requests finish first)");
        }
        out.flush();
        // The CLI's own threads (main, the JVM's shutdown hook) may wait; the server itself never blocks.
        Runnable stop = () -> server.shutdown().block(server.shutdownBound());
        Thread hook = new Thread(stop, "omnigraph-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            server.onTerminated().block();
        } catch (RuntimeException interrupted) {
            // Interrupted while waiting (embedding, tests): clear the flag so the graceful shutdown can wait.
            Thread.interrupted();
        } finally {
            reloader.close();
            stop.run();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException alreadyShuttingDown) {
                // The JVM is exiting and the hook is running: nothing to remove.
            }
        }
        return OmnigraphCli.OK;
    }
}

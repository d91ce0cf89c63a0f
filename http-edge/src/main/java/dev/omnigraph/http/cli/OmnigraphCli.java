package dev.omnigraph.http.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.http.wire.ErrorBodies;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.error.PreconditionFailed;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.storage.root.S3Settings;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParseResult;
import reactor.core.Exceptions;

/**
 * Entry point of the {@code omnigraph} command line. The CLI's main thread is the one place allowed to block.
 * Exit codes: 0 success, 1 any error ({@code error[<code>]: message} on stderr), 4 a lost {@code --if-commit}.
 */
@Command(name = "omnigraph", mixinStandardHelpOptions = true, version = "omnigraph 0.1.0",
        description = "OmniGraph/J: a typed property graph on Lance datasets, with branches and commits.",
        subcommands = {InitCommand.class, LoadCommand.class, QueryCommand.class, MutateCommand.class,
                SnapshotCommand.class, CommitCommand.class, ChangesCommand.class, BranchCommand.class, ExportCommand.class, RecoveryCommand.class, RepairCommand.class, CleanupCommand.class, OptimizeCommand.class,
                FailpointsCommand.class, CheckCommand.class, ServeCommand.class, SchemaCommand.class,
                DemoCommand.class, QueriesCommand.class, BlobCommand.class, IndexCommand.class, PolicyCommand.class,
                CommandLine.HelpCommand.class})
public final class OmnigraphCli {
    public static final int OK = 0;
    public static final int ERROR = 1;
    public static final int LOST_PRECONDITION = 4;

    final PrintStream out;
    final PrintStream err;
    private final StorageServices injected;

    @CommandLine.Option(names = "--s3-endpoint", paramLabel = "<url>", description = "S3-compatible endpoint for "
            + "s3:// roots (else $OMNIGRAPH_S3_ENDPOINT, $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL; default: AWS).")
    String s3Endpoint;

    @CommandLine.Option(names = "--s3-region", paramLabel = "<region>",
            description = "Region for s3:// roots (else $OMNIGRAPH_S3_REGION, $AWS_REGION, $AWS_DEFAULT_REGION, us-east-1).")
    String s3Region;

    @CommandLine.Option(names = "--s3-path-style", arity = "1", paramLabel = "<true|false>", description = "Path-style "
            + "S3 addressing (else $OMNIGRAPH_S3_PATH_STYLE; default: on when an endpoint is given).")
    Boolean s3PathStyle;
    @CommandLine.Option(names = "--policy", paramLabel = "<bundle>", description = "Check every direct write of "
            + "this run against a policy bundle, as the --as actor (a write without one is refused).")
    java.nio.file.Path policy;
    private StorageServices created;
    /** Every graph this run opened: closed (leases given back) before the run returns. */
    private final java.util.List<dev.omnigraph.engine.Omnigraph> opened = new java.util.ArrayList<>();

    private OmnigraphCli(PrintStream out, PrintStream err, StorageServices services) {
        this.out = out;
        this.err = err;
        this.injected = services;
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the CLI and returns its exit code (used by tests that drive the CLI in-process). */
    public static int run(String... args) {
        return run(System.out, System.err, null, args);
    }

    /**
     * Runs the CLI on the given streams. {@code services} may be null: the run then creates its own storage
     * services and closes them when it ends.
     */
    public static int run(PrintStream out, PrintStream err, StorageServices services, String... args) {
        OmnigraphCli cli = new OmnigraphCli(out, err, services);
        CommandLine commandLine = commandLine(cli);
        commandLine.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        commandLine.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        commandLine.setParameterExceptionHandler((e, argv) -> {
            err.println("error[usage]: " + e.getMessage());
            err.println("run '" + e.getCommandLine().getCommandSpec().qualifiedName() + " --help' for usage");
            return ERROR;
        });
        commandLine.setExecutionExceptionHandler((e, cmd, parsed) -> cli.report(e, parsed));
        try {
            return commandLine.execute(args);
        } finally {
            cli.closeGraphs();
            cli.closeServices();
        }
    }

    /**
     * The command tree with {@code --help}/{@code --version} on every verb and subcommand, added here once so a new
     * verb gets them too. Picocli answers a usage-help option before it validates required parameters.
     */
    static CommandLine commandLine(Object top) {
        CommandLine commandLine = new CommandLine(top);
        // <root> is a path, a file:// URI or s3://bucket/prefix; the top-level --s3-* flags come before the verb,
        // so they are set when a verb's root is converted.
        if (top instanceof OmnigraphCli cli) {
            commandLine.registerConverter(GraphRoot.class, text -> GraphRoot.parse(text, cli::s3Settings));
        }
        withHelp(commandLine);
        return commandLine;
    }

    private static void withHelp(CommandLine command) {
        if (command.getCommandSpec().findOption("--help") == null) {
            command.getCommandSpec().mixinStandardHelpOptions(true);
        }
        command.getSubcommands().values().forEach(OmnigraphCli::withHelp);
    }

    /** S3 settings from the --s3-* flags over the environment; credentials from the AWS default provider chain. */
    S3Settings s3Settings() {
        return S3Settings.from(System.getenv(), java.util.Optional.ofNullable(s3Endpoint),
                java.util.Optional.ofNullable(s3Region), java.util.Optional.ofNullable(s3PathStyle));
    }

    /** The command tree as the CLI runs it (for tests that walk every verb). */
    public static CommandLine commandTree() {
        return commandLine(new OmnigraphCli(System.out, System.err, null));
    }

    /** The storage services of this run (created on first use when none were injected). */
    synchronized StorageServices services() {
        if (injected != null) return injected;
        if (created == null) created = StorageServices.create();
        return created;
    }

    /** Records a graph this run opened, so it is closed when the run ends. */
    synchronized dev.omnigraph.engine.Omnigraph opened(dev.omnigraph.engine.Omnigraph graph) {
        opened.add(graph);
        return graph;
    }

    /**
     * Closes every graph this run opened and waits until each gave its writer tenure back: a lease object would
     * otherwise stay held until it expires, and the next command on the root would be refused meanwhile. The CLI's
     * thread may block. A failure to give one back is reported, not thrown: the command's own outcome stands.
     */
    private synchronized void closeGraphs() {
        for (dev.omnigraph.engine.Omnigraph graph : opened) {
            try {
                graph.closeAsync().block();
            } catch (RuntimeException failed) {
                err.println("warning: could not give back the writer lease of " + graph.location().displayUri()
                        + ": " + Exceptions.unwrap(failed).getMessage());
            }
        }
        opened.clear();
    }

    private synchronized void closeServices() {
        if (created != null) {
            created.close();
            created = null;
        }
    }

    /** One clear line on stderr (and the JSON error body on stdout under --json); exit 4 for a lost precondition. */
    int report(Exception failure, ParseResult parsed) {
        Throwable t = Exceptions.unwrap(failure);
        ErrorBodies.Reply reply = ErrorBodies.of(t);
        if (wantsJson(parsed)) {
            ObjectNode body = reply.body();
            out.println(Json.text(body));
        }
        String message = reply.message() == null ? t.toString() : reply.message();
        err.println("error[" + reply.wireCode() + "]: " + message.replace('\n', ' '));
        return t instanceof PreconditionFailed ? LOST_PRECONDITION : ERROR;
    }

    private static boolean wantsJson(ParseResult parsed) {
        ParseResult leaf = parsed;
        while (leaf.hasSubcommand()) leaf = leaf.subcommand();
        return leaf.hasMatchedOption("--json")
                || (leaf.hasMatchedOption("--format") && "json".equals(String.valueOf(leaf.matchedOptionValue("--format", ""))));
    }
}

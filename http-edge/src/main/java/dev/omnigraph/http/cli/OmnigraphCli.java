package dev.omnigraph.http.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the {@code omnigraph} command line. The CLI's main thread is the one place allowed to block. */
@Command(name = "omnigraph", mixinStandardHelpOptions = true, version = "omnigraph 0.1.0",
        description = "OmniGraph/J: a typed property graph on Lance datasets, with branches and commits.",
        subcommands = {DemoCommand.class})
public final class OmnigraphCli {

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the CLI and returns its exit code (used by tests that drive the CLI in-process). */
    public static int run(String... args) {
        return new CommandLine(new OmnigraphCli()).execute(args);
    }
}

package dev.omnigraph.http.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** A verb that only groups subcommands ({@code branch}, {@code commit}, …): run bare, it prints its usage and fails. */
abstract class CommandGroup implements Callable<Integer> {
    @ParentCommand
    OmnigraphCli cli;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(cli.err);
        return OmnigraphCli.ERROR;
    }
}

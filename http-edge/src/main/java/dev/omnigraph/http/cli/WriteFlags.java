package dev.omnigraph.http.cli;

import dev.omnigraph.engine.WriteOptions;
import picocli.CommandLine.Option;

/**
 * The options every writing verb shares (mutate, load, queries run), declared once and mixed in with
 * {@code @Mixin}: target branch, actor, idempotency key and JSON output.
 */
final class WriteFlags {
    @Option(names = "--branch", defaultValue = "main", description = "Branch to write (default: ${DEFAULT-VALUE}).")
    String branch;

    @Option(names = "--as", paramLabel = "<actor>", description = "Actor recorded on the commit.")
    String actor;

    @Option(names = "--idempotency-key", paramLabel = "<key>", description = "Make the write idempotent: run again with "
            + "the same key and request, it prints the first run's outcome and writes nothing.")
    String idempotencyKey;

    @Option(names = "--json", description = "Print the result (with the commit, null if nothing changed) as JSON.")
    boolean json;

    /** The engine's options for a mutation; {@code ifCommit} (nullable) makes it conditional. */
    WriteOptions mutationOptions(String ifCommit) {
        WriteOptions options = WriteOptions.DEFAULT;
        if (actor != null) options = options.actor(actor);
        if (ifCommit != null) options = options.ifGraphCommit(ifCommit);
        if (idempotencyKey != null) options = options.idempotencyKey(idempotencyKey);
        return options;
    }
}

package dev.omnigraph.http.cli;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.ReadTarget;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.omnigraph.storage.BlobWindow;
import dev.omnigraph.storage.root.GraphRoot;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code omnigraph blob get <root> <type> <id> <property>}: the bytes of one Blob property. */
@Command(name = "blob", description = "Read Blob property bytes.", subcommands = {BlobCommand.Get.class})
final class BlobCommand {
    @ParentCommand
    OmnigraphCli cli;

    @Command(name = "get", description = "Write one Blob's bytes (or a slice of them) to stdout or --out.")
    static final class Get implements Callable<Integer> {
        @ParentCommand
        BlobCommand parent;

        @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
        GraphRoot root;

        @Parameters(index = "1", paramLabel = "<type>", description = "Node or edge type.")
        String type;

        @Parameters(index = "2", paramLabel = "<id>", description = "Entity id.")
        String id;

        @Parameters(index = "3", paramLabel = "<property>", description = "Blob property.")
        String property;

        @Option(names = "--branch", description = "Branch (default main).")
        String branch;

        @Option(names = "--snapshot", description = "A commit id; exclusive with --branch.")
        String snapshot;

        @Option(names = "--offset", defaultValue = "0", description = "First byte (default 0); at or past the end is an error.")
        long offset;

        @Option(names = "--length", description = "Bytes to read (default: to the end; cut at the end).")
        Long length;

        @Option(names = "--out", description = "Write the bytes to this file instead of stdout.")
        Path out;

        @Override
        public Integer call() {
            OmnigraphCli cli = parent.cli;
            if (branch != null && snapshot != null) throw new IllegalArgumentException("give either --branch or --snapshot, not both");
            if (offset < 0 || (length != null && length < 0)) throw new IllegalArgumentException("--offset and --length must be >= 0");
            Omnigraph graph = Cli.open(cli, root, OpenMode.READ_ONLY);
            ReadTarget target = snapshot != null ? ReadTarget.commit(snapshot) : ReadTarget.branch(branch != null ? branch : "main");
            // Only the asked bytes are read; an offset past the end is a typed error (not an empty output).
            BlobWindow window = BlobWindow.from(offset, length == null ? OptionalLong.empty() : OptionalLong.of(length));
            byte[] bytes = graph.blob(target, type, id, property, window).block().bytes();
            try {
                if (out != null) {
                    Files.write(out, bytes);
                } else {
                    cli.out.write(bytes);
                    cli.out.flush();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return OmnigraphCli.OK;
        }
    }
}

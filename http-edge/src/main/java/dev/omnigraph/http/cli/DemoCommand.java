package dev.omnigraph.http.cli;

import dev.omnigraph.storage.LanceTableStorage;
import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.StorageScheduler;
import dev.omnigraph.storage.TableSnapshot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The embedded demo: a storage smoke that creates a table, stages and commits rows, and reads them back. */
@Command(name = "demo", description = "Run an embedded demo against a local graph root (no external service).")
final class DemoCommand implements Callable<Integer> {

    @Option(names = "--root", description = "Directory for the demo data (default: ${DEFAULT-VALUE}).",
            defaultValue = "demo-graph")
    Path root;

    @Override
    public Integer call() throws Exception {
        Path table = root.toAbsolutePath().resolve("smoke-" + System.currentTimeMillis());
        Files.createDirectories(root);
        Schema schema = new Schema(List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Utf8()), null),
                Field.nullable("name", new ArrowType.Utf8())));
        try (StorageScheduler scheduler = StorageScheduler.create();
             LanceTableStorage storage = new LanceTableStorage(scheduler)) {
            TableSnapshot created = storage.create(table.toString(), schema).block();
            System.out.println("created table " + table + " at version " + created.version());
            var handle = storage.stageAppend(created, List.of(
                    Map.of("id", "p1", "name", "Alice"),
                    Map.of("id", "p2", "name", "Bob")), Map.of()).block();
            System.out.println("staged " + handle);
            var committed = storage.commitStaged(handle).block();
            System.out.println("committed version " + committed.version() + " exact=" + committed.isExactly(handle.identity()));
            TableSnapshot latest = storage.open(created.ref(), java.util.OptionalLong.empty()).block();
            storage.scan(latest, ScanRequest.all()).flatMapIterable(RowBatch::rows)
                    .doOnNext(row -> System.out.println("read back " + row))
                    .blockLast();
        }
        return 0;
    }
}

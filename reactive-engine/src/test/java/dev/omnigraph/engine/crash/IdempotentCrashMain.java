package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.WriteOptions;
import java.nio.file.Path;
import java.util.Map;

/** Child-JVM side of {@link IdempotentCrashTest}: one keyed mutation, with failpoints from the environment. */
public final class IdempotentCrashMain {
    static final String QUERY = "query addNote($text: String) { insert Note { text: $text } }";
    static final String KEY = "crash-key";

    static Map<String, Object> params() {
        return Map.of("text", "survives");
    }

    public static void main(String[] args) {
        try (StorageServices services = StorageServices.create()) {
            Omnigraph graph = Omnigraph.open(services, Path.of(args[0]), OpenMode.READ_WRITE).block();
            graph.mutate("main", QUERY, "addNote", params(), WriteOptions.DEFAULT.idempotencyKey(KEY)).block();
            System.out.println("DONE");
        }
        System.exit(0);
    }
}

package dev.omnigraph.engine;

import dev.omnigraph.engine.write.WriteContext;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.Map;
import java.util.TreeMap;

/** Test access to engine internals for tests of other engine packages (e.g. {@code engine.write}). */
public final class EngineInternals {
    private EngineInternals() {
    }

    public static StorageServices services() {
        return EngineFixture.services();
    }

    public static void close(StorageServices services) {
        EngineFixture.close(services);
    }

    public static String socialSchema() {
        return EngineFixture.SOCIAL;
    }

    public static WriteContext writeContext(Omnigraph graph) {
        return graph.writeContext();
    }

    /** The manifest pins of main's head, by table key. */
    public static Map<String, TableEntry> pins(Omnigraph graph) {
        Map<String, TableEntry> pins = new TreeMap<>();
        graph.writeContext().manifest().load("main").block().liveTables().forEach(e -> pins.put(e.tableKey(), e));
        return pins;
    }
}

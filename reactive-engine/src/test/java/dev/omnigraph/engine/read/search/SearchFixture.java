package dev.omnigraph.engine.read.search;

import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Flux;

/** A graph on real Lance datasets in a temp dir, loaded from NDJSON lines, queried through the facade. */
final class SearchFixture {
    private SearchFixture() {}

    static StorageServices services() {
        return new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
    }

    /** Real Lance storage whose calls {@code counter} counts. */
    static StorageServices countingServices(dev.omnigraph.storage.StorageCallCounter counter) {
        return new StorageServices(dev.omnigraph.storage.testing.StorageFixture.scheduler(),
                new dev.omnigraph.storage.CountingTableStorage(dev.omnigraph.storage.testing.StorageFixture.newTableStorage(), counter));
    }

    static Omnigraph graph(StorageServices services, Path dir, String schema, List<String> lines) {
        Omnigraph graph = Omnigraph.init(services, dir, schema).block();
        load(graph, lines);
        return graph;
    }

    static void load(Omnigraph graph, List<String> lines) {
        graph.load("main", LoadMode.APPEND, Flux.fromIterable(lines)
                .map(l -> ByteBuffer.wrap((l + "\n").getBytes(StandardCharsets.UTF_8))), LoadOptions.DEFAULT).block();
    }

    static List<List<Object>> query(Omnigraph graph, String source, Map<String, Object> params) {
        return graph.query(ReadTarget.main(), source, "q", params).block().rows().collectList().block();
    }

    /** The first column of every row. */
    static List<Object> first(Omnigraph graph, String source, Map<String, Object> params) {
        return query(graph, source, params).stream().map(r -> r.get(0)).toList();
    }
}

package dev.omnigraph.engine;

import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.TableRef;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import reactor.core.publisher.Flux;

/** Reads committed rows and table versions straight from storage, to check what writes really did. */
final class GraphTestSupport {
    static final String CONSTRAINED = """
            node Person {
                name: String @key
                age: I32?
                email: String? @unique
                status: enum(active, retired)?
                seen: DateTime?
                @range(age, 0..150)
                @check(name, "[A-Za-z ]+")
            }
            node Company {
                name: String @key
            }
            node Note {
                text: String
            }
            edge Knows: Person -> Person
            edge WorksAt: Person -> Company @card(0..1) {
                since: Date?
            }
            """;

    private GraphTestSupport() {
    }

    static Flux<ByteBuffer> ndjson(String... lines) {
        return Flux.fromArray(lines).map(line -> ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8)));
    }

    /** Query params from alternating names and values. */
    static Map<String, Object> params(Object... keyValues) {
        Map<String, Object> params = new java.util.HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            params.put((String) keyValues[i], keyValues[i + 1]);
        }
        return params;
    }

    /** Every committed row of a table at the branch's current pin, sorted by id. */
    static List<Map<String, Object>> rows(Omnigraph graph, String tableKey) {
        return rows(graph, ReadTarget.main(), tableKey);
    }

    /** Every row of a table as {@code target} (a branch head or a time-travel commit) pins it, sorted by id. */
    static List<Map<String, Object>> rows(Omnigraph graph, ReadTarget target, String tableKey) {
        GraphSnapshot snapshot = graph.snapshot(target).block();
        TableInfo table = snapshot.table(tableKey).orElseThrow();
        TableRef ref = new TableRef(graph.location().uri() + "/" + table.path(), table.lanceBranch()); // local or S3
        var services = graph.services();
        return services.tables().open(ref, OptionalLong.of(table.version()))
                .flatMapMany(pinned -> services.tables().scan(pinned, ScanRequest.all()))
                .flatMapIterable(RowBatch::rows)
                .sort(Comparator.comparing(row -> (String) row.get("id")))
                .collectList().block();
    }

    /** Table key → pinned version and the manifest version: equal before and after means nothing changed. */
    static Map<String, Long> versions(Omnigraph graph) {
        GraphSnapshot snapshot = graph.snapshot(ReadTarget.main()).block();
        Map<String, Long> out = new TreeMap<>();
        snapshot.tables().forEach(table -> out.put(table.tableKey(), table.version()));
        out.put("__manifest", snapshot.manifestVersion());
        for (TableInfo table : snapshot.tables()) {
            TableRef ref = new TableRef(graph.root().resolve(table.path()).toString(), table.lanceBranch());
            out.put(table.tableKey() + "#head", graph.services().tables().head(ref).block());
        }
        return out;
    }
}

package dev.omnigraph.engine.write;

import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.SqlLiterals;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Reads of committed rows at a token's pins, for validation and read-your-writes. */
public final class CommittedRows {
    /** Ids per {@code IN} list: keeps each Lance filter small. */
    static final int CHUNK = 512;

    private final WriteContext ctx;

    public CommittedRows(WriteContext ctx) {
        this.ctx = ctx;
    }

    public Mono<TableSnapshot> snapshot(TableEntry pin) {
        return ctx.tables().open(ctx.ref(pin), OptionalLong.of(pin.version()));
    }

    /** Committed rows matching a SQL filter (empty = all), projected to {@code columns} (empty = all). */
    public Flux<Map<String, Object>> where(TableEntry pin, String filter, List<String> columns) {
        ScanRequest request = ScanRequest.all().withColumns(columns);
        ScanRequest filtered = filter.isEmpty() ? request : request.withFilter(filter);
        return snapshot(pin).flatMapMany(snapshot -> ctx.tables().scan(snapshot, filtered))
                .flatMapIterable(RowBatch::rows);
    }

    /** Committed rows whose {@code column} is one of {@code values}, in chunked {@code IN} filters. */
    public Flux<Map<String, Object>> whereIn(TableEntry pin, String column, Collection<String> values, List<String> columns) {
        if (values.isEmpty()) {
            return Flux.empty();
        }
        List<String> all = new ArrayList<>(values);
        return snapshot(pin).flatMapMany(snapshot -> Flux.range(0, (all.size() + CHUNK - 1) / CHUNK)
                .concatMap(chunk -> ctx.tables().scan(snapshot, ScanRequest.all().withColumns(columns)
                        .withFilter(SqlLiterals.inList(column, all.subList(chunk * CHUNK,
                                Math.min(all.size(), (chunk + 1) * CHUNK)))))))
                .flatMapIterable(RowBatch::rows);
    }
}

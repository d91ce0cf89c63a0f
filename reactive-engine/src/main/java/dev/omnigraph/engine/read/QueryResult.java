package dev.omnigraph.engine.read;

import java.util.List;
import reactor.core.publisher.Flux;

/**
 * The answer to a read query: column metadata, known before any I/O, and the rows, one unmodifiable list per row
 * in column order. {@code rows} is cold (the query runs on subscription) and honours backpressure.
 */
public record QueryResult(List<ColumnMeta> columns, Flux<List<Object>> rows) {
    public QueryResult {
        columns = List.copyOf(columns);
    }
}

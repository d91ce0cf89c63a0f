package dev.omnigraph.engine;

import java.util.List;
import java.util.Optional;
import reactor.core.publisher.Flux;

/**
 * The answer of a read query: the commit it was served from (usable as a conditional write's expected head),
 * the column metadata, and the rows as a demand-driven {@code Flux}, one list per row in column order.
 */
public record QueryOutput(String queryName, Optional<String> graphCommitId, List<Column> columns, Flux<List<Object>> rows) {

    /** A result column: its name and its type spelled like the schema (e.g. {@code String}, {@code I64?}). */
    public record Column(String name, String type) {
    }
}

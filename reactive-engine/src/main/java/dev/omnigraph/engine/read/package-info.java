/**
 * Read queries and export on pinned snapshots. <b>Internal</b>, except {@link dev.omnigraph.engine.read.QueryLimits},
 * which is public API (the budget a caller passes to {@code Omnigraph.query}). {@link
 * dev.omnigraph.engine.read.QueryResult} is the executor's answer, which the facade hands out as
 * {@code QueryOutput}; use that.
 *
 * <p>{@link dev.omnigraph.engine.read.QueryExecutor} runs a checked {@code ReadPlan} against one
 * {@code ManifestState}; {@link dev.omnigraph.engine.read.GraphExporter} streams a state as load-format NDJSON.
 * Semantics chosen where the language reference leaves room:
 * <ul>
 *   <li>Hop bounds: per start node, breadth-first with a visited set seeded with the start; a target counts when its
 *       shortest distance is within {@code [min, max]}; the start is its own target only through a self-loop at
 *       distance 1. Edges between two different node types cannot chain, so their {@code {min, max}} is capped at 1.
 *   <li>Undirected {@code <edge>} with an edge binding yields each edge once per orientation, a self-loop once.
 *   <li>NULL never matches: {@code !=}, {@code contains} and {@code starts_with} included; an absent optional
 *       parameter is NULL. {@code not { … }} keeps a row when the inner comparison is NULL.
 *   <li>A whole node ({@code return { $p }}) is a map of {@code id} then every declared property (NULLs kept).
 *   <li>Aggregates skip NULLs; {@code sum} of nothing is 0 (its type is non-null), {@code avg/min/max} of nothing NULL;
 *       no grouping columns and no rows gives one row. Integer sums are exact and fail beyond I64.
 *   <li>Order: NULL first ascending, last descending; ties fall back to the ids of every bound variable of the match
 *       block (edge bindings included) in variable-name order; in aggregate queries to the grouping columns.
 *       Without {@code order} the row order is unspecified.
 *   <li>Strings compare by code point (UTF-8 byte order, as Lance does); a float constant compared with an F32
 *       property is compared as F32.
 * </ul>
 */
package dev.omnigraph.engine.read;

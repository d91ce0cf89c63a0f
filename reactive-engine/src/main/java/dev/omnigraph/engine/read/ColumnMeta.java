package dev.omnigraph.engine.read;

/**
 * One result column: its output name and its type spelled as in the schema ({@code String}, {@code I64?},
 * {@code [String]}, {@code enum(a, b)?}), or the node type name ({@code Person}) for a whole-node column.
 */
public record ColumnMeta(String name, String type) {}

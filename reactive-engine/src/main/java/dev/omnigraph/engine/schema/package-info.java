/**
 * The {@code .pg} schema compiler, its IR and the catalog of tables. <b>Internal</b>, except the read-only catalog
 * views a caller gets from {@code Omnigraph.schema().catalog()} ({@link dev.omnigraph.engine.schema.Catalog},
 * {@link dev.omnigraph.engine.schema.CatalogTable}, {@link dev.omnigraph.engine.schema.NodeTable},
 * {@link dev.omnigraph.engine.schema.EdgeTable}); the compiler classes are public only because the facade and the
 * HTTP edge's schema routes use them.
 */
package dev.omnigraph.engine.schema;

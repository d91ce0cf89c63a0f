/**
 * The <b>public API</b> of the engine: {@link dev.omnigraph.engine.Omnigraph} (one handle on a graph root; every
 * operation a {@code Mono} or {@code Flux}), how it is opened ({@link dev.omnigraph.engine.OpenMode},
 * {@link dev.omnigraph.engine.StorageServices}), what reads bind to and return
 * ({@link dev.omnigraph.engine.ReadTarget}, {@link dev.omnigraph.engine.GraphSnapshot},
 * {@link dev.omnigraph.engine.TableInfo}, {@link dev.omnigraph.engine.QueryOutput}) and the options of writes
 * ({@link dev.omnigraph.engine.WriteOptions}, {@link dev.omnigraph.engine.LoadOptions}). Its public methods also
 * expose a few value types of other packages, which are public API too: {@code load.LoadMode},
 * {@code read.QueryLimits}, {@code write.WriteOutcome}, {@code write.WriteLimits},
 * {@code write.IdempotencySettings}, and the errors of {@code dev.omnigraph.storage.error}. The package-private
 * classes here (graph init, schema files, idempotency key hashing) are internal. See {@code docs/java-api.md}.
 */
package dev.omnigraph.engine;

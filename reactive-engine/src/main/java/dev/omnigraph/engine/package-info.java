/**
 * The <b>public API</b> of the engine: {@link dev.omnigraph.engine.Omnigraph} (one handle on a graph root; every
 * operation a {@code Mono} or {@code Flux}), its one way in, the immutable
 * {@link dev.omnigraph.engine.OmnigraphBuilder} ({@code Omnigraph.at(root)}, with {@link dev.omnigraph.engine.OpenMode}
 * and {@link dev.omnigraph.engine.StorageServices}), its operation families with their request records
 * ({@link dev.omnigraph.engine.BranchOperations}, {@link dev.omnigraph.engine.SchemaOperations},
 * {@link dev.omnigraph.engine.MaintenanceOperations}, {@link dev.omnigraph.engine.ChangeOperations}), what reads bind to and return
 * ({@link dev.omnigraph.engine.ReadTarget}, {@link dev.omnigraph.engine.GraphSnapshot},
 * {@link dev.omnigraph.engine.TableInfo}, {@link dev.omnigraph.engine.QueryOutput}) and the options of writes
 * ({@link dev.omnigraph.engine.WriteOptions}, {@link dev.omnigraph.engine.LoadOptions}). Its public methods also
 * expose a few value types of other packages, which are public API too: {@code load.LoadMode},
 * {@code read.QueryLimits}, {@code write.WriteOutcome}, {@code write.WriteLimits},
 * {@code write.IdempotencySettings}, and the errors of {@code dev.omnigraph.storage.error}. The package-private
 * classes here (graph init, schema files, idempotency key hashing) are internal; what the engine's own modules and
 * tests need beyond the API is {@code dev.omnigraph.engine.internal.HandleInternals}. {@code docs/java-api-surface.md}
 * lists the whole surface (checked by {@code PublicApiSurfaceTest}); see {@code docs/java-api.md}.
 */
package dev.omnigraph.engine;

/**
 * <b>Internal</b>: engine hooks the engine's own modules (HTTP edge, CLI, benchmarks) and tests reach beyond the
 * public API: a handle's gates, idempotency index, failpoints, object store, pending sidecars, minor compactions and
 * the raw change engine, through {@link dev.omnigraph.engine.internal.HandleInternals#of}. Nothing here is API: it
 * changes without notice, and no public method of the public API (package {@code engine}) takes or returns a type
 * of a package marked {@link Internal} ({@code PublicApiSurfaceTest} checks it). It depends on the engine's inner
 * packages but never on the public API package, which installs it: so the two form no package cycle.
 */
@Internal
package dev.omnigraph.engine.internal;

import dev.omnigraph.engine.annotation.Internal;

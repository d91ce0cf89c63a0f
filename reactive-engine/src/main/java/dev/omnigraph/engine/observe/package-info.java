/**
 * The engine's instrumentation seam: {@link dev.omnigraph.engine.observe.EngineTelemetry} turns the write
 * pipeline's step boundaries into Micrometer timers, counters and observations, and does nothing when the handle
 * was opened without a registry. <b>Internal</b>: embedders pass a {@code MeterRegistry} or
 * {@code ObservationRegistry} to {@code OmnigraphBuilder}; the meter names are documented in docs/http-api.md.
 */
@Internal
package dev.omnigraph.engine.observe;

import dev.omnigraph.engine.annotation.Internal;

/**
 * NDJSON loading: the streaming line reader, value conversion and the loader that writes one commit.
 * <b>Internal</b>, except {@link dev.omnigraph.engine.load.LoadMode}, which is public API (the mode of
 * {@code Omnigraph.load}).
 */
package dev.omnigraph.engine.load;

/**
 * The writer of {@code .gq} mutations (insert, update, delete) as one commit. <b>Internal</b>: public only
 * because the facade in {@code dev.omnigraph.engine} constructs it.
 */
@Internal
package dev.omnigraph.engine.mutation;

import dev.omnigraph.engine.annotation.Internal;

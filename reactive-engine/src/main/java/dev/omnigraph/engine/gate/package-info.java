/**
 * Process-local, non-blocking gates (schema read/write, branch and table exclusive) that order writes on one
 * root. <b>Internal</b>: public only because {@code HandleInternals.gates()} hands them to tests (in this module
 * and the HTTP edge's) that assert every permit was released.
 */
@Internal
package dev.omnigraph.engine.gate;

import dev.omnigraph.engine.annotation.Internal;

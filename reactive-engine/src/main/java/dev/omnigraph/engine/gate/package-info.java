/**
 * Process-local, non-blocking gates (schema read/write, branch and table exclusive) that order writes on one
 * root. <b>Internal</b>: public only because the facade exposes {@code Omnigraph.gates()} to tests (in this module
 * and the HTTP edge's) that assert every permit was released.
 */
package dev.omnigraph.engine.gate;

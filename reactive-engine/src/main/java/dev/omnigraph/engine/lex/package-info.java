/**
 * Lexing shared by the {@code .pg} and {@code .gq} compilers. <b>Internal</b>: public only so the
 * {@code schema} and {@code query} packages can share it.
 */
@Internal
package dev.omnigraph.engine.lex;

import dev.omnigraph.engine.annotation.Internal;

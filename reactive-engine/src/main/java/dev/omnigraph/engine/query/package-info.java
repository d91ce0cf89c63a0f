/**
 * The {@code .gq} compiler: lexer, parser, checkers and the compiled read and mutation plans with their parameter
 * binding. <b>Internal</b>: public only because the facade, the executor, the writers and the HTTP edge's
 * query-text checks use it across packages.
 */
@Internal
package dev.omnigraph.engine.query;

import dev.omnigraph.engine.annotation.Internal;

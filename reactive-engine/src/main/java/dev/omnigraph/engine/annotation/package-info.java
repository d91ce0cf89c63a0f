/**
 * Annotations the engine's packages carry about themselves. A leaf: it depends on nothing, so any package may use
 * it without tying itself to another.
 */
package dev.omnigraph.engine.annotation;

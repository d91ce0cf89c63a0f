package dev.omnigraph.engine.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a package (on its {@code package-info.java}) or a type as engine-internal: public only so other engine
 * packages and modules can use it. Kept at run time so a test can refuse it in a public API signature.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.PACKAGE, ElementType.TYPE})
public @interface Internal {
}

package io.questdb.jar.jni;

/** What {@link JarJniLoader} throws when the library is missing from the jar or cannot be unpacked (as jar-jni's). */
public class LoadException extends RuntimeException {
    public LoadException(String message) {
        super(message);
    }

    public LoadException(String message, Throwable cause) {
        super(message, cause);
    }
}

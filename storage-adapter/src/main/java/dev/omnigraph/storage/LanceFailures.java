package dev.omnigraph.storage;

import dev.omnigraph.storage.error.CommitConflict;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.OmnigraphException;
import dev.omnigraph.storage.error.StorageFault;

/**
 * Maps what Lance's JNI throws onto the engine's typed errors. Lance signals a commit conflict as
 * {@code IllegalArgumentException("Commit conflict …")} and a retryable one as a plain
 * {@code RuntimeException("Retryable commit conflict …")}; missing datasets/versions as "… not found".
 */
final class LanceFailures {
    private LanceFailures() {
    }

    static OmnigraphException translate(String operation, TableRef ref, long readVersion, Throwable failure) {
        if (failure instanceof OmnigraphException typed) {
            return typed;
        }
        String message = String.valueOf(failure.getMessage());
        if (message.contains("Retryable commit conflict")) {
            return new CommitConflict(ref.toString(), readVersion, true, failure);
        }
        if (message.contains("Commit conflict")) {
            return new CommitConflict(ref.toString(), readVersion, false, failure);
        }
        if (message.contains("was not found") || message.contains("not found")) {
            // The native message names dataset paths and its own source files: not for a client.
            return new NotFound("table", ref.toString(), operation + ": a dataset of this graph was not found");
        }
        return new StorageFault(operation + " on " + ref + " failed: " + firstLine(message), failure);
    }

    static OmnigraphException translate(String operation, TableRef ref, Throwable failure) {
        return translate(operation, ref, -1, failure);
    }

    private static String firstLine(String message) {
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}

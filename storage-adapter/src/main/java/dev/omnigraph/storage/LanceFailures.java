package dev.omnigraph.storage;

import dev.omnigraph.storage.error.CommitConflict;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.OmnigraphException;
import dev.omnigraph.storage.error.StorageFault;

/**
 * Maps what Lance's JNI throws onto the engine's typed errors. Lance 7 throws plain {@code RuntimeException}s and
 * tells conflicts apart only by message: {@code "Retryable commit conflict …"} (an Update or Delete preempted on the
 * same fragment) and {@code "Incompatible transaction …"} (e.g. an Append after an Overwrite or Restore); older
 * builds said {@code "Commit conflict …"}. Missing datasets/versions say "… not found".
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
        if (message.contains("Commit conflict") || message.contains("Incompatible transaction")) {
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

package dev.omnigraph.storage.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts a test main class in a child JVM on this JVM's class path, with the flags Arrow needs and a private
 * temp directory (a JVM killed mid-run may leave temp files behind, e.g. Arrow's small JNI copy; the caller deletes
 * it). Lance's own native library is loaded from the per-user cache, never copied (io.questdb.jar.jni.JarJniLoader).
 */
public final class ChildJvm {
    private ChildJvm() {
    }

    /** A child JVM that ran to its end: its exit code, everything it printed, and its process id. */
    public record Finished(int exitValue, String output, long pid) {
    }

    /**
     * Runs {@code mainClass} to its end, its output going to a file (so a child that hangs cannot block the reader):
     * a child still running after {@code timeout} is killed and fails the test with what it printed so far.
     */
    public static Finished run(Class<?> mainClass, Path tmpDir, List<String> args, List<String> env,
                               java.time.Duration timeout) throws IOException, InterruptedException {
        Path log = Files.createTempFile(Files.createDirectories(tmpDir), "child-", ".log");
        Process child = builder(mainClass, tmpDir, args, env).redirectOutput(log.toFile()).start();
        if (!child.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
            child.destroyForcibly().waitFor();
            throw new AssertionError(mainClass.getSimpleName() + " " + args + " did not finish within " + timeout
                    + "; it printed:\n" + Files.readString(log));
        }
        return new Finished(child.exitValue(), Files.readString(log), child.pid());
    }

    public static Process start(Class<?> mainClass, Path tmpDir, List<String> args, List<String> env) throws IOException {
        return builder(mainClass, tmpDir, args, env).start();
    }

    private static ProcessBuilder builder(Class<?> mainClass, Path tmpDir, List<String> args, List<String> env)
            throws IOException {
        Files.createDirectories(tmpDir);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--add-opens=java.base/java.nio=ALL-UNNAMED");
        command.add("-Xmx512m");
        // Short-lived children: C1 only and the serial collector start faster on 2 cores.
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-Djava.io.tmpdir=" + tmpDir);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        for (String assignment : env) {
            int eq = assignment.indexOf('=');
            builder.environment().put(assignment.substring(0, eq), assignment.substring(eq + 1));
        }
        return builder;
    }
}

package dev.omnigraph.http.cli;

import io.micrometer.observation.ObservationRegistry;
import java.io.PrintStream;
import picocli.CommandLine.Option;

/** {@code --progress} of the long maintenance verbs: their steps on stderr (see {@link StepProgress}). */
final class ProgressOption {
    @Option(names = "--progress", paramLabel = "<auto|plain|json|none>", defaultValue = "auto", description = "Steps on "
            + "stderr as they end: plain lines, JSON lines, or none; auto (default) is plain when stderr is a terminal.")
    String progress;

    /** The observation registry to open the graph with for {@code verb}. */
    ObservationRegistry registry(String verb, PrintStream err) {
        return StepProgress.registry(verb, progress, err);
    }
}

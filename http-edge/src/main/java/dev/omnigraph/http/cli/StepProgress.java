package dev.omnigraph.http.cli;

import dev.omnigraph.http.wire.Json;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Progress of {@code optimize}, {@code cleanup}, {@code index ensure} and {@code branch merge} on stderr, read from
 * the engine's own observations (the same ones a tracer sees): a line as each protocol step of the write ends
 * ({@code plan}, {@code stage}, {@code table_commit}, {@code publish}, …), as each dataset of a cleanup is done, and
 * when the whole run ends. {@code plain} lines for a person, {@code json} lines for a script, {@code none} at all.
 */
final class StepProgress implements ObservationHandler<Observation.Context> {
    private static final String STARTED = StepProgress.class.getName() + ".started";

    private final String verb;
    private final ProgressReporter.Mode mode;
    private final PrintStream err;
    private final AtomicInteger datasets = new AtomicInteger();

    private StepProgress(String verb, ProgressReporter.Mode mode, PrintStream err) {
        this.verb = verb;
        this.mode = mode;
        this.err = err;
    }

    /** The registry a verb opens its graph with: no-op (nothing observed, nothing costs) when progress is off. */
    static ObservationRegistry registry(String verb, String option, PrintStream err) {
        ProgressReporter.Mode mode = ProgressReporter.mode(option);
        if (mode == ProgressReporter.Mode.NONE) {
            return ObservationRegistry.NOOP;
        }
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new StepProgress(verb, mode, err));
        return registry;
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return true;
    }

    @Override
    public void onStart(Observation.Context context) {
        context.put(STARTED, System.nanoTime());
    }

    @Override
    public void onStop(Observation.Context context) {
        Long started = context.get(STARTED);
        long ms = started == null ? 0 : (System.nanoTime() - started) / 1_000_000;
        String outcome = context.getError() == null ? "done" : "failed";
        switch (context.getName()) {
            case "omnigraph.write.step" -> print("step", value(context, "step"), outcome, ms);
            case "omnigraph.maintenance.step" -> print("dataset", "dataset " + datasets.incrementAndGet(), outcome, ms);
            case "omnigraph.write", "omnigraph.maintenance" -> {
                if (context.getParentObservation() == null) {
                    print("end", verb, outcome, ms);
                }
            }
            default -> {
            }
        }
    }

    private static String value(Observation.Context context, String key) {
        KeyValue found = context.getLowCardinalityKeyValue(key);
        return found == null ? "?" : found.getValue();
    }

    private void print(String event, String what, String outcome, long ms) {
        if (mode == ProgressReporter.Mode.JSON) {
            err.println(Json.text(Json.object().put("event", event).put("verb", verb).put("what", what)
                    .put("outcome", outcome).put("elapsed_ms", ms)));
        } else {
            err.println(verb + ": " + what + " " + outcome + " (" + ms + " ms)");
        }
        err.flush();
    }
}

package dev.omnigraph.engine.observe;

import dev.omnigraph.recovery.Sidecar.WriterKind;
import dev.omnigraph.recovery.SidecarRecovery;
import dev.omnigraph.storage.error.OmnigraphException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * One handle's instrumentation: the write pipeline wraps each protocol step in {@link #step}, each write in
 * {@link #write}, and reports group sizes, retries, replays and recoveries here. With neither registry given
 * ({@link #NONE}) every method hands its work back unwrapped and records nothing, so an uninstrumented handle pays
 * one field read per step. Tags are low-cardinality by construction: writer kinds, step names, outcomes and
 * {@link dev.omnigraph.storage.error.ErrorCode} wire names; never a branch, key, id or query text (the branch goes
 * on the observation as a high-cardinality key, which traces keep and metrics drop).
 */
public final class EngineTelemetry {
    /** No registries: nothing recorded, nothing wrapped. */
    public static final EngineTelemetry NONE = new EngineTelemetry(null, null);

    /** Where a caller's observation sits in the Reactor context (Micrometer's ObservationThreadLocalAccessor.KEY). */
    public static final String CALLER_OBSERVATION = "micrometer.observation";
    /** Where a turn's write observation sits in the Reactor context, for its step children. */
    static final String WRITE_OBSERVATION = EngineTelemetry.class.getName() + ".write";

    private static final Logger WRITES = LoggerFactory.getLogger("dev.omnigraph.writes");
    private static final Logger RECOVERIES = LoggerFactory.getLogger("dev.omnigraph.recoveries");

    /** The protocol steps timed per writer (docs/architecture-writes.md, "The write pipeline"). */
    public enum Step {
        HEAL("heal"), GATE_WAIT("gate_wait"), PLAN("plan"), STAGE("stage"), RECHECK("recheck"), ARM("arm"),
        TABLE_COMMIT("table_commit"), CONFIRM("confirm"), PUBLISH("publish"), SIDECAR_DELETE("sidecar_delete"),
        COMPENSATE("compensate");

        private final String label;

        Step(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    private final MeterRegistry meters;
    private final ObservationRegistry observations;
    /** Meters by name and tags: a registry lookup builds ids and a tag list on every call, a map hit does not. */
    private final Map<String, Timer> timers = new ConcurrentHashMap<>();
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();
    private final Map<String, DistributionSummary> summaries = new ConcurrentHashMap<>();

    private EngineTelemetry(MeterRegistry meters, ObservationRegistry observations) {
        this.meters = meters;
        this.observations = observations;
    }

    /** Telemetry onto {@code meters} and {@code observations}, either may be null; both null is {@link #NONE}. */
    public static EngineTelemetry of(MeterRegistry meters, ObservationRegistry observations) {
        return meters == null && observations == null ? NONE : new EngineTelemetry(meters, observations);
    }

    public boolean active() {
        return this != NONE;
    }

    public MeterRegistry meters() {
        return meters;
    }

    // ---- writes and their steps ---------------------------------------------------------------------------

    /**
     * One write from its submission to its answer: the {@code omnigraph.write} timer and observation (a child of
     * the caller's observation when its Reactor context carries one), the commit/conflict/refusal counters, and
     * one INFO line when it ended. {@code work} receives the observation its steps hang under (null when none).
     */
    public <T> Mono<T> write(WriterKind writer, String branch, Function<T, WriteSummary> summary,
                             Function<Observation, Mono<T>> work) {
        if (!active()) {
            return work.apply(null);
        }
        String kind = writerTag(writer);
        return Mono.deferContextual(context -> {
            Observation observation = observations == null ? null
                    : Observation.createNotStarted("omnigraph.write", observations)
                            .parentObservation(context.getOrDefault(CALLER_OBSERVATION, null))
                            .contextualName("write " + kind)
                            .lowCardinalityKeyValue("writer", kind)
                            .highCardinalityKeyValue("branch", branch)
                            .start();
            long start = System.nanoTime();
            AtomicBoolean ended = new AtomicBoolean();
            return work.apply(observation)
                    .doOnSuccess(answer -> {
                        if (ended.compareAndSet(false, true)) {
                            WriteSummary outcome = answer == null ? null : summary.apply(answer);
                            String result = outcome == null || outcome.commitId().isEmpty() ? "unchanged"
                                    : outcome.replayed() ? "replayed" : "committed";
                            finishWrite(writer, kind, branch, observation, start, result, "none", outcome, null);
                        }
                    })
                    .doOnError(error -> {
                        if (ended.compareAndSet(false, true)) {
                            finishWrite(writer, kind, branch, observation, start, "error", errorTag(error), null, error);
                        }
                    })
                    .doOnCancel(() -> {
                        if (ended.compareAndSet(false, true)) {
                            finishWrite(writer, kind, branch, observation, start, "cancelled", "none", null, null);
                        }
                    });
        });
    }

    private void finishWrite(WriterKind writer, String kind, String branch, Observation observation, long start,
                             String outcome, String error, WriteSummary done, Throwable failure) {
        long nanos = System.nanoTime() - start;
        if (meters != null) {
            timer("omnigraph.write", "writer", kind, "outcome", outcome, "error", error).record(nanos, TimeUnit.NANOSECONDS);
            if ("committed".equals(outcome)) {
                counter("omnigraph.write.commits", "writer", kind).increment();
            } else if (failure != null) {
                counter(isConflict(error) ? "omnigraph.write.conflicts" : "omnigraph.write.refusals",
                        "writer", kind, "error", error).increment();
            }
        }
        if (observation != null) {
            observation.lowCardinalityKeyValue("outcome", outcome);
            if (failure != null) {
                observation.error(failure);
            }
            observation.stop();
        }
        if (WRITES.isInfoEnabled()) {
            WRITES.info("write writer={} branch={} outcome={} commit={} nodes={} edges={} ms={}{}", kind, branch, outcome,
                    done == null ? "-" : done.commitId().orElse("-"),
                    done == null ? 0 : done.affectedNodes(), done == null ? 0 : done.affectedEdges(),
                    TimeUnit.NANOSECONDS.toMillis(nanos), failure == null ? "" : " error=" + error);
        }
    }

    /** The Reactor context a turn runs in, so its steps find {@code observation} (the lead write's) as parent. */
    public static Function<Context, Context> under(Observation observation) {
        return context -> observation == null ? context : context.put(WRITE_OBSERVATION, observation);
    }

    /**
     * One protocol step: the {@code omnigraph.write.step} timer (writer, step, outcome) and a child observation of
     * the turn's write. Timed from subscription to the first terminal signal.
     */
    public <T> Mono<T> step(WriterKind writer, Step step, Mono<T> work) {
        if (!active()) {
            return work;
        }
        String kind = writerTag(writer);
        return Mono.deferContextual(context -> {
            // A pipeline turn's write, else the caller's (a writer with its own protocol, such as optimize).
            Observation parent = context.getOrDefault(WRITE_OBSERVATION, context.getOrDefault(CALLER_OBSERVATION, null));
            Observation observation = observations == null ? null
                    : Observation.createNotStarted("omnigraph.write.step", observations)
                            .parentObservation(parent)
                            .contextualName(step.label())
                            .lowCardinalityKeyValue("writer", kind)
                            .lowCardinalityKeyValue("step", step.label())
                            .start();
            long start = System.nanoTime();
            AtomicBoolean ended = new AtomicBoolean();
            return work
                    .doOnSuccess(value -> endStep(ended, kind, step, observation, start, "success", null))
                    .doOnError(error -> endStep(ended, kind, step, observation, start, "error", error))
                    .doOnCancel(() -> endStep(ended, kind, step, observation, start, "cancelled", null));
        });
    }

    private void endStep(AtomicBoolean ended, String kind, Step step, Observation observation, long start,
                         String outcome, Throwable failure) {
        if (!ended.compareAndSet(false, true)) {
            return;
        }
        if (meters != null) {
            timer("omnigraph.write.step", "writer", kind, "step", step.label(), "outcome", outcome)
                    .record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }
        if (observation != null) {
            if (failure != null) {
                observation.error(failure);
            }
            observation.stop();
        }
    }

    /** A group of {@code size} writes reached its table commits as one graph commit. */
    public void grouped(WriterKind writer, int size) {
        if (meters != null) {
            summaries.computeIfAbsent("group|" + writer, key -> DistributionSummary.builder("omnigraph.write.group.size")
                    .description("writes carried by one graph commit").baseUnit("writes")
                    .tag("writer", writerTag(writer)).register(meters)).record(size);
        }
    }

    /** Writes planned again: {@code reason} is {@code reprepare} (a head moved) or {@code regroup} (a member cancelled). */
    public void retried(WriterKind writer, String reason, int writes) {
        if (meters != null && writes > 0) {
            counter("omnigraph.write.retries", "writer", writerTag(writer), "reason", reason).increment(writes);
        }
    }

    /** An idempotency key answered with the recorded outcome instead of writing again. */
    public void replayed(WriterKind writer) {
        if (meters != null) {
            counter("omnigraph.write.idempotent.replays", "writer", writerTag(writer)).increment();
        }
    }

    /**
     * One sidecar resolved by recovery: {@code mode} is {@code sweep} (a read-write open), {@code heal} (a write's
     * entry) or {@code compensate} (a writer undoing its own attempt).
     */
    public void recovered(String mode, String operationId, SidecarRecovery.Outcome outcome) {
        String result = outcomeTag(outcome);
        if (meters != null) {
            counter("omnigraph.recoveries", "mode", mode, "outcome", result).increment();
        }
        if (active() && RECOVERIES.isInfoEnabled()) {
            RECOVERIES.info("recovery mode={} operation={} outcome={}", mode, operationId, result);
        }
    }

    // ---- other operations ------------------------------------------------------------------------------------

    /** A read or maintenance stream as one observation ({@code name}, e.g. {@code omnigraph.query}) and timer. */
    public <T> Flux<T> observe(String name, String operation, Flux<T> work) {
        if (!active()) {
            return work;
        }
        return Flux.deferContextual(context -> {
            Operation running = new Operation(name, operation, context.getOrDefault(CALLER_OBSERVATION, null));
            return work.doOnComplete(() -> running.end("success", null))
                    .doOnError(error -> running.end("error", error))
                    .doOnCancel(() -> running.end("cancelled", null))
                    .contextWrite(running::asCaller);
        });
    }

    /** As {@link #observe(String, String, Flux)} for one answer. */
    public <T> Mono<T> observe(String name, String operation, Mono<T> work) {
        if (!active()) {
            return work;
        }
        return Mono.deferContextual(context -> {
            Operation running = new Operation(name, operation, context.getOrDefault(CALLER_OBSERVATION, null));
            return work.doOnSuccess(value -> running.end("success", null))
                    .doOnError(error -> running.end("error", error))
                    .doOnCancel(() -> running.end("cancelled", null))
                    .contextWrite(running::asCaller);
        });
    }

    /** One running operation: its observation (when observed) and start time; ended once. */
    private final class Operation {
        private final String name;
        private final String operation;
        private final Observation observation;
        private final long start = System.nanoTime();
        private final AtomicBoolean ended = new AtomicBoolean();

        Operation(String name, String operation, Observation parent) {
            this.name = name;
            this.operation = operation;
            this.observation = observations == null ? null : Observation.createNotStarted(name, observations)
                    .parentObservation(parent).contextualName(operation)
                    .lowCardinalityKeyValue("operation", operation).start();
        }

        /** The work's context: its own observation as the caller of what it runs (writes, steps), when observed. */
        Context asCaller(Context context) {
            return observation == null ? context : context.put(CALLER_OBSERVATION, observation);
        }

        void end(String outcome, Throwable failure) {
            if (!ended.compareAndSet(false, true)) {
                return;
            }
            if (meters != null) {
                timer(name, "operation", operation, "outcome", outcome, "error",
                        failure == null ? "none" : errorTag(failure)).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            }
            if (observation != null) {
                if (failure != null) {
                    observation.error(failure);
                }
                observation.stop();
            }
        }
    }

    // ---- tags and meters -------------------------------------------------------------------------------------

    static String writerTag(WriterKind writer) {
        return switch (writer) {
            case Mutation -> "mutation";
            case Load -> "load";
            case SchemaApply -> "schema_apply";
            case BranchMerge -> "branch_merge";
            case EnsureIndices -> "ensure_indices";
            case Optimize -> "optimize";
        };
    }

    /** The typed error's stable wire name; anything untyped is {@code internal} (its message is never a tag). */
    static String errorTag(Throwable error) {
        return error instanceof OmnigraphException typed ? typed.code().wireName() : "internal";
    }

    private static boolean isConflict(String error) {
        return error.endsWith("conflict");
    }

    static String outcomeTag(SidecarRecovery.Outcome outcome) {
        String simple = outcome.getClass().getSimpleName();
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < simple.length(); i++) {
            char c = simple.charAt(i);
            if (Character.isUpperCase(c) && i > 0) {
                out.append('_');
            }
            out.append(Character.toLowerCase(c));
        }
        return out.toString().toLowerCase(Locale.ROOT);
    }

    private Timer timer(String name, String... tags) {
        return timers.computeIfAbsent(name + '|' + String.join("|", tags),
                key -> Timer.builder(name).tags(tags).register(meters));
    }

    private Counter counter(String name, String... tags) {
        return counters.computeIfAbsent(name + '|' + String.join("|", tags),
                key -> Counter.builder(name).tags(tags).register(meters));
    }
}

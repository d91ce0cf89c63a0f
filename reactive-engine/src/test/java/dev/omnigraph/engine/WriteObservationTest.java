package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.observe.EngineTelemetry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A handle opened with an {@code ObservationRegistry} reports each write as one observation, a child of the
 * caller's (from the Reactor context), with one child observation per protocol step, started in protocol order.
 * Micrometer's TestObservationRegistry also checks every observation's lifecycle (started once, stopped once).
 */
class WriteObservationTest {
    static final String QUERIES = "query addPerson($name: String) { insert Person { name: $name } }";

    @TempDir
    Path dir;
    StorageServices services;
    TestObservationRegistry observations;
    /** Contexts in the order their observations started. */
    final List<Observation.Context> started = new CopyOnWriteArrayList<>();
    Omnigraph graph;

    @BeforeEach
    void setUp() {
        services = EngineFixture.services();
        observations = TestObservationRegistry.create();
        observations.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStart(Observation.Context context) {
                started.add(context);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        graph = Omnigraph.at(dir.resolve("g")).services(services).observationRegistry(observations)
                .init(EngineFixture.SOCIAL).block();
    }

    @AfterEach
    void tearDown() {
        graph.close();
        EngineFixture.close(services);
    }

    @Test
    void aWriteIsOneObservationWithItsStepsAsChildrenInProtocolOrder() {
        Observation caller = Observation.start("caller.request", observations);
        graph.mutate("main", QUERIES, "addPerson", Map.of("name", "Ada"), WriteOptions.DEFAULT)
                .contextWrite(context -> context.put(EngineTelemetry.CALLER_OBSERVATION, caller))
                .block(Duration.ofSeconds(60));
        caller.stop();

        List<Observation.Context> writes = started.stream().filter(c -> c.getName().equals("omnigraph.write")).toList();
        assertThat(writes).hasSize(1);
        Observation.Context write = writes.get(0);
        assertThat(write.getParentObservation()).isSameAs(caller);
        assertThat(write.getLowCardinalityKeyValue("writer").getValue()).isEqualTo("mutation");
        assertThat(write.getLowCardinalityKeyValue("outcome").getValue()).isEqualTo("committed");
        assertThat(write.getHighCardinalityKeyValue("branch").getValue()).isEqualTo("main");

        List<Observation.Context> steps = started.stream().filter(c -> c.getName().equals("omnigraph.write.step")).toList();
        assertThat(steps).allSatisfy(step -> assertThat(step.getParentObservation().getContextView()).isSameAs(write));
        List<String> order = steps.stream().map(Observation.Context::getContextualName).toList();
        // Stage and recheck run side by side, the arm beside staging and the publish's manifest stage beside the
        // table commit: these start in protocol order.
        assertThat(order).containsSubsequence("heal", "gate_wait", "plan", "recheck", "arm", "table_commit", "confirm",
                "sidecar_delete");
        assertThat(order).containsSubsequence("plan", "stage", "table_commit");
        assertThat(order).containsSubsequence("plan", "publish", "sidecar_delete");
        assertThat(order).doesNotHaveDuplicates().hasSize(10);

        TestObservationRegistryAssert.assertThat(observations)
                .doesNotHaveAnyRemainingCurrentObservation()
                .hasNumberOfObservationsWithNameEqualTo("omnigraph.write.step", 10)
                .hasObservationWithNameEqualTo("omnigraph.write").that().hasBeenStarted().hasBeenStopped();
    }
}

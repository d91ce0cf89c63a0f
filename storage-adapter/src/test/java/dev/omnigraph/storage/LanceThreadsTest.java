package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LanceThreadsTest {
    @Test
    void aSmallMachineWithoutTheVariableIsToldWhatToSet() {
        assertThat(LanceThreads.advice(Map.of(), 2)).hasValueSatisfying(advice -> assertThat(advice)
                .contains("2 CPU(s)").contains("LANCE_CPU_THREADS=8"));
        assertThat(LanceThreads.advice(Map.of("LANCE_CPU_THREADS", " "), 1)).isPresent();
    }

    @Test
    void theVariableSetOrEnoughCpusSayNothing() {
        assertThat(LanceThreads.advice(Map.of("LANCE_CPU_THREADS", "4"), 2)).isEmpty();
        assertThat(LanceThreads.advice(Map.of(), 4)).isEmpty();
    }

    @Test
    void theSuiteRunsWithTheVariableSet() {
        // The parent POM sets it for every test JVM (and the child JVMs they start inherit it).
        assertThat(System.getenv(LanceThreads.ENV)).isNotBlank();
    }
}

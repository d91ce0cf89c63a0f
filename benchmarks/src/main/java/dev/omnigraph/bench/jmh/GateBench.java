package dev.omnigraph.bench.jmh;

import dev.omnigraph.engine.gate.AsyncRwGate;
import dev.omnigraph.engine.gate.Gates;
import dev.omnigraph.engine.gate.Permit;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Acquire + release of the non-blocking gates: one gate shared or exclusive, the full write permit (schema shared →
 * branch → two sorted tables), and two threads contending for one exclusive gate.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--add-opens=java.base/java.nio=ALL-UNNAMED")
public class GateBench {
    private final AsyncRwGate gate = new AsyncRwGate("bench");
    private final Gates gates = Gates.forRoot("/bench/" + UUID.randomUUID());
    private final TreeSet<String> twoTables = new TreeSet<>(java.util.List.of("edge:Knows", "node:Person"));

    /** Uncontended: the grant is delivered synchronously inside subscribe, so release runs before it returns. */
    @Benchmark
    public void exclusiveAcquireRelease() {
        gate.exclusive().subscribe(Permit::release);
    }

    @Benchmark
    public void sharedAcquireRelease() {
        gate.shared().subscribe(Permit::release);
    }

    @Benchmark
    public void writePermitSchemaBranchTwoTables() {
        gates.forWrite("main", twoTables).subscribe(Permit::release);
    }

    /** Two threads on one exclusive gate: a waiter parks as a queued sink and is admitted on release. */
    @Benchmark
    @Threads(2)
    public void exclusiveContendedTwoThreads() {
        gate.exclusive().block().release();
    }
}

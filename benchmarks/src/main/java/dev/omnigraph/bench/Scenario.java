package dev.omnigraph.bench;

/** One benchmark scenario: runs its own measured series and its baseline in the same run, on the same machine. */
public interface Scenario {
    String name();

    ScenarioReport run(BenchContext ctx) throws Exception;
}

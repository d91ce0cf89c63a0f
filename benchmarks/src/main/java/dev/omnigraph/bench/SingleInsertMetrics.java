package dev.omnigraph.bench;

import dev.omnigraph.engine.Omnigraph;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;

/**
 * The cost of metrics on the write path: one-row keyed inserts on a graph opened without a registry (nothing
 * recorded) against the same inserts on a graph opened with a Prometheus registry (every step timed, storage calls
 * counted by class), interleaved per repetition so machine noise hits both alike, both recreated every
 * {@value SingleInsert#BLOCK} repetitions as in single-insert. The registry is scraped once per block, so its
 * meters are exercised as a server would.
 */
final class SingleInsertMetrics implements Scenario {
    static final String PLAIN = "omnigraph: insert Person, no registry";

    @Override
    public String name() {
        return "single-insert-metrics";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        ScenarioReport report = new ScenarioReport(name(), "One-row insert with and without a Micrometer Prometheus "
                + "registry attached to the handle (issue 32: within noise, <= 3% on the median).")
                .unit("ms per single-row write");
        Path dir = ctx.workDir(name());
        Series plain = report.row(PLAIN, null);
        Series metered = report.row("omnigraph: insert Person, Prometheus registry", PLAIN);
        int warmup = ctx.options().pick(20, 2);
        int reps = ctx.options().pick(200, 3);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Omnigraph bare = null;
        Omnigraph observed = null;
        long scraped = 0;
        for (int i = 0; i < warmup + reps; i++) {
            boolean measured = i >= warmup;
            String name = "sim-" + i;
            if (i % SingleInsert.BLOCK == 0) {
                if (bare != null) {
                    bare.close();
                    observed.close();
                    scraped += registry.scrape().length();
                }
                Path block = dir.resolve("block-" + i);
                BenchContext.deleteTree(dir.resolve("block-" + (i - SingleInsert.BLOCK)));
                bare = ctx.run(() -> Omnigraph.at(block.resolve("plain")).services(ctx.services()).init(Workload.SCHEMA));
                observed = ctx.run(() -> Omnigraph.at(block.resolve("metered")).services(ctx.services())
                        .meterRegistry(registry).init(Workload.SCHEMA));
            }
            Omnigraph b = bare;
            Omnigraph o = observed;
            // Alternate which goes first, so neither always writes on the warmer caches.
            if (i % 2 == 0) {
                ctx.runOrMeasure(measured ? plain : null, () -> Workload.addPerson(b, name, 36));
                ctx.runOrMeasure(measured ? metered : null, () -> Workload.addPerson(o, name, 36));
            } else {
                ctx.runOrMeasure(measured ? metered : null, () -> Workload.addPerson(o, name, 36));
                ctx.runOrMeasure(measured ? plain : null, () -> Workload.addPerson(b, name, 36));
            }
        }
        bare.close();
        observed.close();
        report.note("warm-up " + warmup + " repetitions per series; fresh graphs every " + SingleInsert.BLOCK
                + " repetitions; " + registry.getMeters().size() + " meters registered, " + scraped
                + " bytes of Prometheus text scraped in all");
        registry.close();
        return report;
    }
}

package dev.omnigraph.bench;

import dev.omnigraph.engine.Omnigraph;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Neo4j embedded, one node per transaction (uniqueness constraint on the key, default durability), beside the
 * same keyed one-row insert through OmniGraph in the same run. Neo4j is the baseline row here.
 */
final class SingleInsertNeo4j implements Scenario {
    static final String NEO4J = "neo4j embedded: 1 node per transaction";

    @Override
    public String name() {
        return "single-insert-neo4j";
    }

    @Override
    public ScenarioReport run(BenchContext ctx) throws Exception {
        ScenarioReport report = new ScenarioReport(name(), "One keyed node per transaction: Neo4j embedded "
                + "(unique constraint on name) vs OmniGraph insert Person, interleaved.")
                .unit("ms per single-node write");
        Path dir = ctx.workDir(name());
        Optional<Neo4jEmbedded> neo4j = ctx.neo4j();
        report.note(ctx.neo4jStatus());
        Series base = report.row(NEO4J, null);
        Series ours = report.row("omnigraph: insert Person", NEO4J);
        int warmup = ctx.options().pick(20, 2);
        int reps = ctx.options().pick(200, 3);
        Omnigraph graph = null;
        for (int i = 0; i < warmup + reps; i++) {
            boolean measured = i >= warmup;
            String name = "n4-" + i;
            if (i % SingleInsert.BLOCK == 0) {
                Path block = dir.resolve("block-" + i);
                BenchContext.deleteTree(dir.resolve("block-" + (i - SingleInsert.BLOCK)));
                graph = ctx.run(() -> Omnigraph.at(block.resolve("graph")).services(ctx.services()).init(Workload.SCHEMA));
            }
            Omnigraph g = graph;
            if (neo4j.isPresent()) {
                Neo4jEmbedded db = neo4j.get();
                if (measured) {
                    ctx.measure(base, 1, () -> {
                        db.insertPerson(name, 36);
                        return null;
                    });
                } else {
                    db.insertPerson(name, 36);
                }
            }
            ctx.runOrMeasure(measured ? ours : null, () -> Workload.addPerson(g, name, 36));
        }
        report.note("as in single-insert, a fresh graph every " + SingleInsert.BLOCK + " writes (at most "
                + (SingleInsert.BLOCK + 1) + " commits deep); the Neo4j database keeps growing (" + (warmup + reps)
                + " nodes at the end)");
        return report;
    }
}

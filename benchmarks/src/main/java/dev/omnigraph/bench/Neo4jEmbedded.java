package dev.omnigraph.bench;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.graphdb.Label;
import org.neo4j.graphdb.Node;
import org.neo4j.graphdb.RelationshipType;
import org.neo4j.graphdb.Transaction;

/**
 * Neo4j embedded (5.26, GPL-3.0, benchmark-only) as the comparison a user would otherwise pick. Persons carry a
 * uniqueness constraint on {@code name}, like the graph's {@code @key}, so both sides check keys on insert and
 * edges resolve endpoints through an index. Default durability: every commit forces the transaction log.
 */
final class Neo4jEmbedded implements AutoCloseable {
    static final Label PERSON = Label.label("Person");
    static final RelationshipType KNOWS = RelationshipType.withName("KNOWS");

    private final DatabaseManagementService management;
    private final GraphDatabaseService db;
    private final double startSeconds;

    private Neo4jEmbedded(DatabaseManagementService management, double startSeconds) {
        this.management = management;
        this.db = management.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        this.startSeconds = startSeconds;
    }

    /**
     * Starts Neo4j in {@code home}; empty when it is not up within {@code budgetSeconds} (the start then finishes
     * in the background and is shut down there).
     */
    static Optional<Neo4jEmbedded> start(Path home, double budgetSeconds) throws Exception {
        long begin = System.nanoTime();
        CompletableFuture<DatabaseManagementService> starting = CompletableFuture.supplyAsync(() ->
                new DatabaseManagementServiceBuilder(home)
                        .setConfig(BoltConnector.enabled, false)
                        .setConfig(GraphDatabaseSettings.pagecache_memory, 512L << 20)
                        .setConfig(GraphDatabaseInternalSettings.udc_network_enabled, false)
                        .build());
        DatabaseManagementService management;
        try {
            management = Double.isInfinite(budgetSeconds) ? starting.get()
                    : starting.get((long) (budgetSeconds * 1000), TimeUnit.MILLISECONDS);
        } catch (TimeoutException slow) {
            starting.thenAccept(DatabaseManagementService::shutdown);
            return Optional.empty();
        }
        Neo4jEmbedded neo4j = new Neo4jEmbedded(management, (System.nanoTime() - begin) / 1e9);
        neo4j.createKeyConstraint();
        return Optional.of(neo4j);
    }

    double startSeconds() {
        return startSeconds;
    }

    private void createKeyConstraint() {
        try (Transaction tx = db.beginTx()) {
            tx.schema().constraintFor(PERSON).assertPropertyIsUnique("name").withName("person_name").create();
            tx.commit();
        }
        try (Transaction tx = db.beginTx()) {
            tx.schema().awaitIndexesOnline(2, TimeUnit.MINUTES);
            tx.commit();
        }
    }

    /** One node in its own transaction. */
    void insertPerson(String name, int age) {
        try (Transaction tx = db.beginTx()) {
            Node node = tx.createNode(PERSON);
            node.setProperty("name", name);
            node.setProperty("age", age);
            tx.commit();
        }
    }

    /** Persons {@code [0, persons)} in transactions of {@code txSize} nodes. */
    void insertPersons(int persons, int txSize) {
        for (int[] chunk : Workload.chunks(persons, txSize)) {
            try (Transaction tx = db.beginTx()) {
                for (int i = chunk[0]; i < chunk[1]; i++) {
                    Node node = tx.createNode(PERSON);
                    node.setProperty("name", Workload.personName(i));
                    node.setProperty("age", i % 100);
                }
                tx.commit();
            }
        }
    }

    /** The same Knows edges as the NDJSON load, endpoints found by the unique index, {@code txSize} per transaction. */
    void insertKnows(int edges, int persons, int txSize) {
        for (int[] chunk : Workload.chunks(edges, txSize)) {
            try (Transaction tx = db.beginTx()) {
                for (int i = chunk[0]; i < chunk[1]; i++) {
                    Node from = tx.findNode(PERSON, "name", Workload.personName(i));
                    Node to = tx.findNode(PERSON, "name", Workload.personName(Workload.knowsTarget(i, persons)));
                    from.createRelationshipTo(to, KNOWS).setProperty("id", "e" + i);
                }
                tx.commit();
            }
        }
    }

    /** Edges {@code [0, edges)} from {@code src(i)} to {@code dst(i)}, endpoints found by the unique index. */
    void insertEdges(int edges, java.util.function.IntFunction<String> src, java.util.function.IntFunction<String> dst,
                     int txSize) {
        for (int[] chunk : Workload.chunks(edges, txSize)) {
            try (Transaction tx = db.beginTx()) {
                for (int i = chunk[0]; i < chunk[1]; i++) {
                    Node from = tx.findNode(PERSON, "name", src.apply(i));
                    Node to = tx.findNode(PERSON, "name", dst.apply(i));
                    from.createRelationshipTo(to, KNOWS).setProperty("id", "e" + i);
                }
                tx.commit();
            }
        }
    }

    /** The rows of one read query, materialised inside its transaction. */
    java.util.List<java.util.Map<String, Object>> rows(String cypher, java.util.Map<String, Object> params) {
        try (Transaction tx = db.beginTx()) {
            java.util.List<java.util.Map<String, Object>> out = new java.util.ArrayList<>();
            tx.execute(cypher, params).forEachRemaining(out::add);
            tx.commit();
            return out;
        }
    }

    long count(String cypher) {
        try (Transaction tx = db.beginTx()) {
            Object value = tx.execute(cypher).columnAs("c").next();
            tx.commit();
            return ((Number) value).longValue();
        }
    }

    /** Deletes everything in batches (not measured), so each repetition starts from an empty database. */
    void clear() {
        while (true) {
            try (Transaction tx = db.beginTx()) {
                long deleted = ((Number) tx.execute("MATCH (n) WITH n LIMIT 5000 DETACH DELETE n RETURN count(*) AS c")
                        .columnAs("c").next()).longValue();
                tx.commit();
                if (deleted == 0) {
                    return;
                }
            }
        }
    }

    @Override
    public void close() {
        management.shutdown();
    }
}

package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.internal.HandleInternals;
import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.engine.gate.Permit;
import dev.omnigraph.engine.load.LoadMode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The writes the crash matrix kills at every failpoint, each touching one to three tables. */
enum CrashScenario {
    INSERT("mutation", 2) {
        @Override
        Mono<?> run(Omnigraph graph) {
            return mutate(graph, "insert");
        }
    },
    UPDATE("mutation", 1) {
        @Override
        Mono<?> run(Omnigraph graph) {
            return mutate(graph, "update");
        }
    },
    DELETE("mutation", 3) {
        @Override
        Mono<?> run(Omnigraph graph) {
            return mutate(graph, "delete");
        }
    },
    /** Three mutations queued while the branch is busy, published by one turn as one group commit. */
    GROUP("mutation", 2) {
        @Override
        Mono<?> run(Omnigraph graph) {
            return Mono.defer(() -> {
                Permit held = HandleInternals.of(graph).gates().forBranch("main").block();
                List<CompletableFuture<?>> writes = new ArrayList<>();
                try {
                    for (String name : List.of("insert", "addYu", "update")) { // update sees Yu (age 50) too
                        writes.add(mutate(graph, name).toFuture());
                    }
                } finally {
                    held.release();
                }
                return Mono.fromFuture(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
            });
        }
    },
    APPEND("load", 2) {
        @Override
        Mono<?> run(Omnigraph graph) {
            return graph.load("main", LoadMode.APPEND, lines(
                    "{\"type\":\"Person\",\"data\":{\"name\":\"Zed\",\"age\":5}}",
                    "{\"edge\":\"Knows\",\"from\":\"Zed\",\"to\":\"Ada\"}"), LoadOptions.DEFAULT);
        }
    },
    MERGE("load", 2) {
        @Override
        Mono<?> run(Omnigraph graph) {
            return graph.load("main", LoadMode.MERGE, lines(
                    "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":77}}",
                    "{\"type\":\"Company\",\"data\":{\"name\":\"NewCo\"}}"), LoadOptions.DEFAULT);
        }
    },
    /**
     * Rows into a table that has none yet (so no index): the load commits them, then the CreateIndex transaction
     * that builds the table's key index, as one declared chain ({@code after_chunk:1.1} between the two).
     */
    FIRST_ROWS("load", 1) {
        @Override
        Mono<?> run(Omnigraph graph) {
            return graph.load("main", LoadMode.APPEND, lines(
                    "{\"type\":\"Tag\",\"data\":{\"name\":\"red\"}}",
                    "{\"type\":\"Tag\",\"data\":{\"name\":\"blue\"}}"), LoadOptions.DEFAULT);
        }
    },
    OVERWRITE("load", 2) {
        @Override
        Mono<?> run(Omnigraph graph) {
            return graph.load("main", LoadMode.OVERWRITE, lines(
                    "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}",
                    "{\"type\":\"Company\",\"data\":{\"name\":\"Initech\"}}"), LoadOptions.DEFAULT.emptying(Set.of("Note")));
        }
    };

    static final String SCHEMA = """
            node Person {
                name: String @key
                age: I32?
            }
            node Company {
                name: String @key
            }
            node Note {
                text: String
            }
            node Tag {
                name: String @key
            }
            edge Knows: Person -> Person
            edge WorksAt: Person -> Company
            """;

    static final String SEED = String.join("\n",
            "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":36}}",
            "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\",\"age\":41}}",
            "{\"type\":\"Person\",\"data\":{\"name\":\"Cy\",\"age\":20}}",
            "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}",
            "{\"type\":\"Note\",\"data\":{\"id\":\"n1\",\"text\":\"hello\"}}",
            "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Bob\",\"data\":{\"id\":\"k1\"}}",
            "{\"edge\":\"Knows\",\"from\":\"Bob\",\"to\":\"Cy\",\"data\":{\"id\":\"k2\"}}",
            "{\"edge\":\"WorksAt\",\"from\":\"Bob\",\"to\":\"Acme\",\"data\":{\"id\":\"w1\"}}") + "\n";

    private static final String QUERIES = """
            query insert() {
                insert Person { name: "Zed", age: 5 }
                insert Knows { from: "Zed", to: "Ada" }
            }
            query addYu() { insert Person { name: "Yu", age: 50 } }
            query update() { update Person set { age: 99 } where age > 30 }
            query delete() { delete Person where name = "Bob" }
            """;

    final String writer;
    /** How many tables the write commits to, i.e. how many {@code after_commit:<n>} points it passes. */
    final int tables;

    CrashScenario(String writer, int tables) {
        this.writer = writer;
        this.tables = tables;
    }

    abstract Mono<?> run(Omnigraph graph);

    static Mono<?> mutate(Omnigraph graph, String name) {
        return graph.mutate("main", QUERIES, name, Map.of(), WriteOptions.DEFAULT);
    }

    static Flux<ByteBuffer> lines(String... lines) {
        return Flux.just(ByteBuffer.wrap((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8)));
    }
}

package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static dev.omnigraph.engine.GraphTestSupport.rows;
import static dev.omnigraph.engine.GraphTestSupport.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.recovery.SidecarStore;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.error.KeyConflict;
import dev.omnigraph.storage.error.ReadSetChanged;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.error.ValidationError;
import dev.omnigraph.storage.manifest.ExpectedHead;
import dev.omnigraph.storage.manifest.ManifestBatchPublisher;
import dev.omnigraph.storage.manifest.ManifestStore;
import dev.omnigraph.storage.manifest.PublishRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Behaviours where the upstream's own tests fix the expected value (issue 13, item 3), each asserted as upstream
 * expects it, on real Lance datasets.
 */
class UpstreamCompatTest extends InitedGraphTestBase {
    static final String SCHEMA = """
            node Person {
                name: String @key
                age: I32?
                status: enum(active, retired)?
                seen: DateTime?
            }
            node Company {
                name: String @key
            }
            node Note {
                text: String
            }
            edge WorksAt: Person -> Company
            edge Mentors: Person -> Person
            """;

    /** The same graph with minimum cardinalities, for the @card test only. */
    static final String CARD_SCHEMA = SCHEMA.replace("Person -> Company", "Person -> Company @card(1..)")
            .replace("Person -> Person", "Person -> Person @card(2..)");

    static final String QUERIES = """
            query addPerson($name: String) { insert Person { name: $name } }
            query insertThenUpdate($n: String) {
                insert Person { name: $n, age: 10 }
                update Person set { age: 11 } where name = $n
            }
            query setStatus($name: String, $s: String) { update Person set { status: $s } where name = $name }
            query quitJob($name: String) { delete WorksAt where from = $name }
            query retireFractional() { update Person set { status: "retired" } where age = 30.5 }
            query byAge() { match { $p: Person  $p.age = 30.5 } return { $p.name } }
            query byAgeBinding() { match { $p: Person { age: 30.5 } } return { $p.name } }
            query byWholeAge() { match { $p: Person { age: 30.0 } } return { $p.name } }
            """;

    @Override
    String schema() {
        return SCHEMA;
    }

    WriteOutcome load(LoadMode mode, String... lines) {
        return graph.load("main", mode, ndjson(lines), LoadOptions.DEFAULT).block(Duration.ofSeconds(60));
    }

    WriteOutcome mutate(String query, Object... keyValues) {
        Map<String, Object> params = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) params.put((String) keyValues[i], keyValues[i + 1]);
        return graph.mutate("main", QUERIES, query, params, WriteOptions.DEFAULT).block(Duration.ofSeconds(60));
    }

    List<Object> names(String query) {
        return graph.query(ReadTarget.main(), QUERIES, query, Map.of()).block().rows()
                .map(row -> row.get(0)).collectList().block();
    }

    static String person(String name, String extra) {
        return "{\"type\":\"Person\",\"data\":{\"name\":\"" + name + "\"" + extra + "}}";
    }

    // ---- a. @card minimums are checked only for sources whose edges the write changed -------------------------

    @Test
    void nodesWithoutEdgesLoadUnderACardMinimumAndChangedSourcesAreStillChecked() {
        graph = Omnigraph.init(services, dir.resolve("card"), CARD_SCHEMA).block();
        assertThat(load(LoadMode.APPEND, person("Ada", ""), person("Bob", "")).commit()).isPresent();
        assertThat(mutate("addPerson", "name", "Cy").commit()).isPresent();
        load(LoadMode.APPEND, "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}",
                "{\"edge\":\"WorksAt\",\"from\":\"Ada\",\"to\":\"Acme\"}");
        Map<String, Long> before = versions(graph);
        // Ada's edges change: removing her only WorksAt breaks @card(1..).
        assertThatThrownBy(() -> mutate("quitJob", "name", "Ada")).isInstanceOfSatisfying(ValidationError.class,
                e -> assertThat(e.getMessage()).contains("Ada").contains("@card(1..*)"));
        // Replacing the WorksAt table removes Ada's edge too: she is checked and refused.
        assertThatThrownBy(() -> load(LoadMode.OVERWRITE, "{\"edge\":\"WorksAt\",\"from\":\"Bob\",\"to\":\"Acme\"}"))
                .isInstanceOfSatisfying(ValidationError.class, e -> assertThat(e.entityId()).isEqualTo("Ada"));
        // @card(2..): a source given one Mentors edge is checked and refused.
        assertThatThrownBy(() -> load(LoadMode.APPEND, "{\"edge\":\"Mentors\",\"from\":\"Bob\",\"to\":\"Cy\"}"))
                .isInstanceOfSatisfying(ValidationError.class, e -> assertThat(e.getMessage()).contains("Bob").contains("@card(2..*)"));
        assertThat(versions(graph)).isEqualTo(before);
        assertThat(load(LoadMode.APPEND, "{\"edge\":\"Mentors\",\"from\":\"Bob\",\"to\":\"Cy\"}",
                "{\"edge\":\"Mentors\",\"from\":\"Bob\",\"to\":\"Ada\"}").commit()).isPresent();
    }

    // ---- b. a fractional literal against an integer column runs and matches nothing ---------------------------

    @Test
    void fractionalLiteralAgainstAnIntegerColumnMatchesNothing() {
        load(LoadMode.APPEND, person("Ada", ",\"age\":30"), person("Bob", ",\"age\":31"));
        assertThat(names("byAge")).isEmpty();
        assertThat(names("byAgeBinding")).isEmpty();
        assertThat(names("byWholeAge")).containsExactly("Ada"); // compared by value, as the filter form does
        WriteOutcome none = mutate("retireFractional");
        assertThat(none.commit()).isEmpty();
        assertThat(none.affectedNodes()).isZero();
    }

    // ---- e. affected counts are per statement --------------------------------------------------------------

    @Test
    void insertThenUpdateOfOnePersonCountsTwo() {
        WriteOutcome outcome = mutate("insertThenUpdate", "n", "Ada");
        assertThat(outcome.affectedNodes()).isEqualTo(2);
        assertThat(outcome.affectedEdges()).isZero();
        assertThat(rows(graph, "node:Person")).hasSize(1);
    }

    // ---- f. a load reports entities per type --------------------------------------------------------------

    @Test
    void loadOutcomeCarriesPerTypeCounts() {
        WriteOutcome outcome = load(LoadMode.APPEND, person("Ada", ""), person("Bob", ""),
                "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}", "{\"type\":\"Note\",\"data\":{\"text\":\"n\"}}",
                "{\"edge\":\"WorksAt\",\"from\":\"Ada\",\"to\":\"Acme\"}", "{\"edge\":\"WorksAt\",\"from\":\"Bob\",\"to\":\"Acme\"}",
                "{\"edge\":\"Mentors\",\"from\":\"Ada\",\"to\":\"Bob\"}", "{\"edge\":\"Mentors\",\"from\":\"Ada\",\"to\":\"Ada\"}");
        assertThat(outcome.byType("node")).containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of("Company", 1L, "Note", 1L, "Person", 2L)));
        assertThat(outcome.byType("edge")).containsExactlyEntriesOf(new java.util.TreeMap<>(Map.of("Mentors", 2L, "WorksAt", 2L)));
        assertThat(outcome.affectedNodes()).isEqualTo(4);
        assertThat(outcome.affectedEdges()).isEqualTo(4);
    }

    // ---- h. a @key repeated in one merge or overwrite input is a @unique violation ---------------------------

    @Test
    void repeatedKeyInOneMergeOrOverwriteIsAUniqueViolationAndWritesNothing() {
        load(LoadMode.APPEND, person("Ada", ",\"age\":1"));
        Map<String, Long> before = versions(graph);
        for (LoadMode mode : List.of(LoadMode.MERGE, LoadMode.OVERWRITE)) {
            assertThatThrownBy(() -> load(mode, person("Bob", ",\"age\":2"), person("Cy", ""), person("Bob", ",\"age\":3")))
                    .as(mode.name()).isInstanceOfSatisfying(ValidationError.class, e -> {
                        assertThat(e.typeName()).isEqualTo("Person");
                        assertThat(e.property()).isEqualTo("name");
                        assertThat(e.entityId()).isEqualTo("Bob");
                        assertThat(e.getMessage()).contains("@unique(name)").contains("'Bob'").contains("line 1").contains("line 3");
                    });
        }
        assertThatThrownBy(() -> load(LoadMode.APPEND, person("Bob", ""), person("Bob", "")))
                .isInstanceOfSatisfying(KeyConflict.class, e -> assertThat(e.ids()).containsExactly("Bob"));
        assertThat(versions(graph)).isEqualTo(before);
        // An explicit id of a non-keyed type repeated in a merge stays last-wins (the reference's upsert rule).
        load(LoadMode.MERGE, "{\"type\":\"Note\",\"data\":{\"id\":\"n1\",\"text\":\"a\"}}",
                "{\"type\":\"Note\",\"data\":{\"id\":\"n1\",\"text\":\"b\"}}");
        assertThat(rows(graph, "node:Note")).singleElement().satisfies(row -> assertThat(row).containsEntry("text", "b"));
    }

    // ---- i. an enum violation in a mutation is a validation error ----------------------------------------------

    @Test
    void enumViolationInAMutationIsAValidationError() {
        mutate("addPerson", "name", "Ada");
        Map<String, Long> before = versions(graph);
        assertThatThrownBy(() -> mutate("setStatus", "name", "Ada", "s", "gone"))
                .isInstanceOfSatisfying(ValidationError.class, e -> {
                    assertThat(e.code().wireName()).isEqualTo("validation_error");
                    assertThat(e.typeName()).isEqualTo("Person");
                    assertThat(e.property()).isEqualTo("status");
                    assertThat(e.getMessage()).contains("'gone'").contains("enum(active, retired)");
                });
        assertThat(versions(graph)).isEqualTo(before);
        assertThat(mutate("setStatus", "name", "Ada", "s", "retired").commit()).isPresent();
    }

    // ---- d. DateTime text always carries milliseconds ---------------------------------------------------------

    @Test
    void exportPrintsDateTimesWithMilliseconds() {
        load(LoadMode.APPEND, person("Ada", ",\"seen\":\"2026-04-01T08:30:00Z\""));
        List<String> lines = graph.export(ReadTarget.main(), Set.of("Person")).collectList().block();
        assertThat(lines).singleElement().asString().contains("\"seen\":\"2026-04-01T08:30:00.000Z\"");
    }

    // ---- j. a publish that loses the exact-head race is a read_set_conflict on graph_head:<branch> ------------

    /**
     * A foreign writer (a raw publisher on the same root, as another process would be) lands a commit after this
     * write's recheck, before its publish: an object-store decorator runs it as the write records its {@code Armed}
     * sidecar (after the recheck, before the table commit; the confirmation no longer precedes the publish, so it
     * cannot order the race), and the write's arm completes only once the foreign commit landed: the interleaving
     * is exact without any waiting.
     */
    @Test
    void aPublishThatLosesTheHeadRaceIsAReadSetConflictAndUndoesItsEffects() {
        Path root = dir.resolve("race");
        AtomicBoolean armed = new AtomicBoolean();
        ManifestBatchPublisher foreign = new ManifestBatchPublisher(new ManifestStore(root.toString(), services.tables()));
        Mono<Void> foreignCommit = Mono.defer(() -> foreign.publish(new PublishRequest("main", ExpectedHead.any(),
                Optional.empty(), Map.of(), List.of(), Ulid.next(), Optional.empty(), Optional.of("foreign"), 1L,
                "foreign")).then());
        StorageServices racing = services.withObjectStores(store -> new ObjectStore() {
            @Override
            public Mono<Void> put(String key, byte[] bytes) {
                String text = new String(bytes, StandardCharsets.UTF_8);
                boolean arming = key.startsWith(SidecarStore.DIRECTORY) && text.contains("Armed")
                        && !text.contains("EffectsConfirmed");
                return store.put(key, bytes).then(arming && armed.compareAndSet(true, false) ? foreignCommit : Mono.empty());
            }

            @Override public Mono<Boolean> putIfAbsent(String key, byte[] bytes) { return store.putIfAbsent(key, bytes); }
            @Override public Mono<Optional<byte[]>> get(String key) { return store.get(key); }
            @Override public Mono<List<String>> list(String prefix) { return store.list(prefix); }
            @Override public Mono<Boolean> delete(String key) { return store.delete(key); }
            @Override public Mono<Boolean> exists(String key) { return store.exists(key); }
            @Override public String rootUri() { return store.rootUri(); }
        });
        graph = Omnigraph.init(racing, root, SCHEMA).block();
        mutate("addPerson", "name", "Ada");
        String planned = graph.snapshot(ReadTarget.main()).block().graphCommitId().orElseThrow();

        armed.set(true);
        assertThatThrownBy(() -> mutate("addPerson", "name", "Bob")).isInstanceOfSatisfying(ReadSetChanged.class, e -> {
            assertThat(e.code().wireName()).isEqualTo("read_set_conflict");
            assertThat(e.what()).isEqualTo("graph_head:main");
            assertThat(e.expected()).isEqualTo(planned);
            assertThat(e.actual()).isNotEqualTo(planned);
        });
        assertThat(armed).as("the foreign commit ran").isFalse();
        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
        assertThat(rows(graph, "node:Person")).extracting(row -> row.get("id")).containsExactly("Ada");
        assertThat(mutate("addPerson", "name", "Bob").commit()).isPresent();
    }

    // ---- k. RecoveryRequired points to what resolves a pending sidecar -----------------------------------------

    @Test
    void recoveryRequiredPointsToRecoveryRunNotRepair() {
        RecoveryRequired e = new RecoveryRequired("01OP", "mutation on branch main failed", null);
        assertThat(e.getMessage()).contains("omnigraph recovery run <root>").contains("restart the server")
                .doesNotContain("omnigraph repair");
    }
}

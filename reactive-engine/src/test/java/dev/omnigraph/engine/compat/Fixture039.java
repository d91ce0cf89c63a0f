package dev.omnigraph.engine.compat;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.omnigraph.engine.LoadOptions;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.TableInfo;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.engine.cleanup.CleanupOptions;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.recovery.SidecarRecovery;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The fixture graph written by the Lance 0.39 build ({@code src/test/resources/compat/lance039/}): its schema, the
 * writes that made it, the writes left pending in its crash roots, the follow-up writes the compatibility test
 * takes, and the record ({@code expected.json}) of what every commit held. Shared by the generator
 * ({@link Fixture039Main}) and the test ({@code Lance039FixtureCompatTest}), so both run the same writes.
 */
final class Fixture039 {
    static final String RESOURCE = "compat/lance039";
    static final String EXPECTED = "expected.json";
    static final String BASE = "base";
    static final String FEATURE = "feature";
    static final String ACTOR = "fixture-039";

    static final String SCHEMA = """
            node Person {
                name: String @key
                age: I32? @index
                bio: String? @index
                level: enum(junior, senior)? @index
                embedding: Vector(4)? @index
            }
            node Company {
                name: String @key
                founded: I32?
            }
            node Doc {
                title: String @index
                body: String?
            }
            edge Knows: Person -> Person {
                since: I32?
            }
            edge WorksAt: Person -> Company
            edge Wrote: Person -> Doc
            """;

    static final String MUTATIONS = """
            query addFay() {
                insert Person { name: "Fay", age: 29, bio: "writes graph engines", level: "junior" }
                insert Knows { from: "Fay", to: "Ada", since: 2024 }
            }
            query olderAda() { update Person set { age: 37 } where name = "Ada" }
            query dropCy() { delete Person where name = "Cy" }
            query addGil() {
                insert Person { name: "Gil", age: 52, bio: "reviews storage code", level: "senior" }
                insert WorksAt { from: "Gil", to: "Acme" }
            }
            query rebio() { update Person set { bio: "maintains the lance port" } where name = "Bob" }
            query addHal() {
                insert Person { name: "Hal", age: 44, level: "senior" }
                insert Company { name: "Hooli", founded: 2004 }
            }
            query addMainPerson() { insert Person { name: "Kim", age: 33, bio: "after the port", level: "junior" } }
            query addBranchPerson() { insert Person { name: "Lou", age: 61, bio: "on the branch", level: "senior" } }
            """;

    static final String QUERIES = """
            query byName($n: String) { match { $p: Person { name: $n } } return { $p.name, $p.age, $p.level } }
            query friendsOf($n: String) {
                match { $p: Person { name: $n }  $p knows $f }
                return { $f.name } order { $f.name asc }
            }
            query bioSearch($t: String) { match { $p: Person  search($p.bio, $t) } return { $p.name } order { $p.name asc } }
            query seniors() { match { $p: Person { level: "senior" } } return { $p.name } order { $p.name asc } }
            query closest($q: Vector(4)) { match { $p: Person } return { $p.name } order { nearest($p.embedding, $q) } limit 3 }
            query docsBy($n: String) {
                match { $p: Person { name: $n }  $p wrote $d }
                return { $d.title } order { $d.title asc }
            }
            """;

    static final String SEED = String.join("\n",
            "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":36,\"bio\":\"designs graph storage\",\"level\":\"senior\",\"embedding\":[0.1,0.2,0.3,0.4]}}",
            "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\",\"age\":41,\"bio\":\"runs the lance datasets\",\"level\":\"senior\",\"embedding\":[0.9,0.1,0.0,0.2]}}",
            "{\"type\":\"Person\",\"data\":{\"name\":\"Cy\",\"age\":20,\"bio\":\"new to graphs\",\"level\":\"junior\",\"embedding\":[0.5,0.5,0.5,0.5]}}",
            "{\"type\":\"Person\",\"data\":{\"name\":\"Dee\",\"age\":28,\"level\":\"junior\",\"embedding\":[0.0,1.0,0.0,1.0]}}",
            "{\"type\":\"Person\",\"data\":{\"name\":\"Eve\",\"age\":45,\"bio\":\"audits recovery sidecars\"}}",
            "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\",\"founded\":1990}}",
            "{\"type\":\"Company\",\"data\":{\"name\":\"Initech\"}}",
            "{\"type\":\"Doc\",\"data\":{\"id\":\"d1\",\"title\":\"storage layout\",\"body\":\"one dataset per type\"}}",
            "{\"type\":\"Doc\",\"data\":{\"id\":\"d2\",\"title\":\"recovery protocol\",\"body\":\"sidecars before effects\"}}",
            "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Bob\",\"data\":{\"id\":\"k1\",\"since\":2019}}",
            "{\"edge\":\"Knows\",\"from\":\"Bob\",\"to\":\"Cy\",\"data\":{\"id\":\"k2\"}}",
            "{\"edge\":\"Knows\",\"from\":\"Dee\",\"to\":\"Ada\",\"data\":{\"id\":\"k3\",\"since\":2021}}",
            "{\"edge\":\"Knows\",\"from\":\"Eve\",\"to\":\"Dee\",\"data\":{\"id\":\"k4\"}}",
            "{\"edge\":\"WorksAt\",\"from\":\"Ada\",\"to\":\"Acme\",\"data\":{\"id\":\"w1\"}}",
            "{\"edge\":\"WorksAt\",\"from\":\"Bob\",\"to\":\"Acme\",\"data\":{\"id\":\"w2\"}}",
            "{\"edge\":\"WorksAt\",\"from\":\"Cy\",\"to\":\"Initech\",\"data\":{\"id\":\"w3\"}}",
            "{\"edge\":\"Wrote\",\"from\":\"Ada\",\"to\":\"d1\",\"data\":{\"id\":\"r1\"}}",
            "{\"edge\":\"Wrote\",\"from\":\"Eve\",\"to\":\"d2\",\"data\":{\"id\":\"r2\"}}");

    /** The queries recorded against main's and the branch's heads (name, params). */
    static final List<Map.Entry<String, Map<String, Object>>> QUERY_CASES = List.of(
            Map.entry("byName", Map.of("n", "Ada")),
            Map.entry("friendsOf", Map.of("n", "Ada")),
            Map.entry("bioSearch", Map.of("t", "graph")),
            Map.entry("seniors", Map.of()),
            Map.entry("closest", Map.of("q", List.of(0.1, 0.2, 0.3, 0.4))),
            Map.entry("docsBy", Map.of("n", "Gil")));

    static final ObjectMapper JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);

    private Fixture039() {
    }

    // ---- the writes ------------------------------------------------------------------------------------------

    static Flux<ByteBuffer> lines(String... lines) {
        return Flux.just(ByteBuffer.wrap((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8)));
    }

    static Mono<String> mutate(Omnigraph graph, String branch, String query) {
        return graph.mutate(branch, MUTATIONS, query, Map.of(), WriteOptions.DEFAULT.actor(ACTOR))
                .map(outcome -> outcome.commit().orElseThrow().id());
    }

    static Mono<String> load(Omnigraph graph, String branch, LoadMode mode, String... ndjson) {
        return graph.load(branch, mode, lines(ndjson), LoadOptions.DEFAULT.actor(ACTOR))
                .map(outcome -> outcome.commit().orElseThrow().id());
    }

    /**
     * The writes left pending, one per crash root: each is killed in a child JVM at {@link #failpoint}, and the
     * protocol prescribes {@link #outcome} for what recovery then does (old: rolled back, new: rolled forward).
     */
    enum PendingWrite {
        /** Two tables on main, killed after the first table commit: one effect landed, nothing confirmed. */
        MUTATION("pending-mutation", "main", "mutation.after_commit:1", "old", Optional.empty()) {
            @Override
            Mono<String> run(Omnigraph graph) {
                return mutate(graph, "main", "addHal");
            }
        },
        /**
         * An append on the branch, killed after its effects were confirmed: node:Person is the branch's own fork,
         * edge:Knows is forked by this load (first touch).
         */
        LOAD("pending-load", FEATURE, "load.after_confirm", "new", Optional.empty()) {
            @Override
            Mono<String> run(Omnigraph graph) {
                return load(graph, FEATURE, LoadMode.APPEND,
                        "{\"type\":\"Person\",\"data\":{\"name\":\"Ivy\",\"age\":31,\"bio\":\"loads on the branch\"}}",
                        "{\"edge\":\"Knows\",\"from\":\"Ivy\",\"to\":\"Gil\",\"data\":{\"id\":\"k-ivy\",\"since\":2025}}");
            }
        },
        /** The branch merged into main, killed after its first table commit (a three-way Person merge is in it). */
        MERGE("pending-merge", "main", "branch_merge.after_commit:1", "old", Optional.of(FEATURE)) {
            @Override
            Mono<String> run(Omnigraph graph) {
                return graph.mergeBranch(FEATURE, "main", false, Optional.of(ACTOR))
                        .map(result -> result.commit().orElseThrow().id());
            }
        };

        final String root;
        final String branch;
        final String failpoint;
        final String outcome;
        final Optional<String> source;

        PendingWrite(String root, String branch, String failpoint, String outcome, Optional<String> source) {
            this.root = root;
            this.branch = branch;
            this.failpoint = failpoint;
            this.outcome = outcome;
            this.source = source;
        }

        /** Runs the write to its end; emits the commit it published. */
        abstract Mono<String> run(Omnigraph graph);
    }

    /**
     * What the compatibility test does to a copy of the base after reading it: a write on main and on the branch,
     * the branch merged into main, optimize of both, cleanup keeping the newest commit. Emits the merge commit.
     */
    static Mono<String> followUp(Omnigraph graph) {
        return mutate(graph, "main", "addMainPerson")
                .then(mutate(graph, FEATURE, "addBranchPerson"))
                .then(graph.mergeBranch(FEATURE, "main", false, Optional.of(ACTOR)))
                .flatMap(merged -> graph.optimize("main", Optional.of(ACTOR))
                        .then(graph.optimize(FEATURE, Optional.of(ACTOR)))
                        .then(graph.cleanup(CleanupOptions.of(OptionalInt.of(1), Optional.empty(), true)))
                        .thenReturn(merged.commit().orElseThrow().id()));
    }

    // ---- reading a graph into the record ---------------------------------------------------------------------

    /** Every type's rows at {@code target}: its export lines (the load format), sorted. */
    static Map<String, List<String>> rows(Omnigraph graph, ReadTarget target) {
        Map<String, List<String>> out = new TreeMap<>();
        for (CatalogTable table : graph.catalog().tables()) {
            List<String> lines = new ArrayList<>(graph.export(target, Set.of(table.typeName())).collectList().block());
            lines.sort(String::compareTo);
            out.put(table.typeName(), lines);
        }
        return out;
    }

    /** Every table's pin at {@code target}. */
    static Map<String, Pin> pins(Omnigraph graph, ReadTarget target) {
        Map<String, Pin> out = new TreeMap<>();
        for (TableInfo table : graph.snapshot(target).block().tables()) {
            out.put(table.tableKey(), new Pin(table.path(), table.version(), table.lanceBranch().orElse(null), table.rowCount()));
        }
        return out;
    }

    /** The commits visible on {@code branch}, newest first. */
    static List<GraphCommit> commits(Omnigraph graph, String branch) {
        return graph.commits(branch).collectList().block();
    }

    /** The ids of the commits visible on {@code branch} that a user made (recovery's own commits left out), newest first. */
    static List<String> userCommits(Omnigraph graph, String branch) {
        return commits(graph, branch).stream()
                .filter(commit -> !commit.actorId().equals(Optional.of(SidecarRecovery.RECOVERY_ACTOR)))
                .map(GraphCommit::id).toList();
    }

    /** Each recorded query's rows at {@code target}, one JSON array per row. */
    static Map<String, List<String>> queries(Omnigraph graph, ReadTarget target) {
        Map<String, List<String>> out = new TreeMap<>();
        for (Map.Entry<String, Map<String, Object>> query : QUERY_CASES) {
            List<String> rows = new ArrayList<>();
            for (List<Object> row : graph.query(target, QUERIES, query.getKey(), query.getValue()).block().rows()
                    .collectList().block()) {
                try {
                    rows.add(new ObjectMapper().writeValueAsString(row));
                } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                    throw new IllegalStateException(e);
                }
            }
            out.put(query.getKey(), rows);
        }
        return out;
    }

    static CommitRecord commitRecord(Omnigraph graph, GraphCommit commit) {
        ReadTarget at = ReadTarget.commit(commit.id());
        return new CommitRecord(commit.id(), commit.parentIds(), commit.branch().orElse(null),
                commit.actorId().orElse(null), commit.operation(), pins(graph, at), rows(graph, at));
    }

    static BranchRecord branchRecord(Omnigraph graph, String branch) {
        return new BranchRecord(commits(graph, branch).stream().map(GraphCommit::id).toList(),
                rows(graph, ReadTarget.branch(branch)), queries(graph, ReadTarget.branch(branch)));
    }

    // ---- the record ------------------------------------------------------------------------------------------

    /** A table's pin: its dataset path (relative to the root), version, Lance ref (null: main) and row count. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    record Pin(String path, long version, String lanceBranch, long rowCount) {
    }

    /** One commit: its lineage and, read by time travel, every table's pin and every type's rows. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    record CommitRecord(String id, List<String> parentIds, String branch, String actorId, String operation,
                        Map<String, Pin> tables, Map<String, List<String>> rows) {
    }

    /** One branch: its commits (newest first), its head's rows and the recorded queries' rows at its head. */
    record BranchRecord(List<String> commits, Map<String, List<String>> rows, Map<String, List<String>> queries) {
    }

    /** A graph root: its branches and every commit any of them shows. */
    record RootRecord(Map<String, BranchRecord> branches, Map<String, CommitRecord> commits) {
    }

    /**
     * A pending root: the base with one write killed at {@code failpoint} on {@code branch}, its sidecar, and the
     * two graphs recovery may leave on that branch: {@code old} (the base's) and {@code new} (the write's, made by
     * running the write to its end on another copy; {@code newCommits} carry the commit id the sidecar pre-minted).
     * {@code rollbackCommitId} is the id a rollback publishes under (when it restores a table).
     */
    record PendingRecord(String write, String branch, String failpoint, String writerKind, String operationId,
                         String outcome, String newCommitId, String rollbackCommitId,
                         List<String> oldCommits, Map<String, List<String>> oldRows,
                         List<String> newCommits, Map<String, List<String>> newRows,
                         String sourceBranch, Map<String, List<String>> sourceRows) {
    }

    /** The follow-up on a copy of the base ({@link #followUp}): the heads of main and the branch afterwards. */
    record FollowUpRecord(Map<String, List<String>> mainRows, Map<String, List<String>> featureRows,
                          Map<String, List<String>> mainQueries) {
    }

    /**
     * The whole record. {@code writtenAt} is the directory the generator wrote the roots in (deleted since): every
     * absolute path found inside the fixture (Lance branch base paths, sidecar table paths) starts with it.
     */
    record Expected(String lance, String generator, String writtenAt, String schema, RootRecord base,
                    Map<String, PendingRecord> pending, FollowUpRecord followUp) {
    }
}

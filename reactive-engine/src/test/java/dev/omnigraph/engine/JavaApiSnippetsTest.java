package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.cleanup.CleanupOptions;
import dev.omnigraph.engine.cleanup.CleanupReport;
import dev.omnigraph.engine.diff.CommitChanges;
import dev.omnigraph.engine.diff.EntityChange;
import dev.omnigraph.engine.diff.FeedPage;
import dev.omnigraph.engine.diff.FeedStart;
import dev.omnigraph.engine.evolve.SchemaApplyResult;
import dev.omnigraph.engine.evolve.SchemaPlan;
import dev.omnigraph.engine.internal.HandleInternals;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.maintain.OptimizeResult;
import dev.omnigraph.engine.merge.MergeResult;
import dev.omnigraph.engine.read.QueryLimits;
import dev.omnigraph.engine.write.IdempotencySettings;
import dev.omnigraph.engine.write.WriteLimits;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.lease.LeaseSettings;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.error.ErrorCode;
import dev.omnigraph.storage.error.KeyConflict;
import dev.omnigraph.storage.error.OmnigraphException;
import dev.omnigraph.storage.error.PreconditionFailed;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * The snippets of {@code docs/java-api.md}, each between {@code tag::name[]} and {@code end::name[]} markers and
 * run here against real Lance in a temp dir. {@link JavaApiDocTest} checks the page quotes them verbatim.
 */
class JavaApiSnippetsTest {
    static final String SCHEMA = """
            node Person {
                name: String @key
                age: I32?
            }
            edge Knows: Person -> Person
            """;
    static final String QUERIES = """
            query addPerson($name: String, $age: I32) { insert Person { name: $name, age: $age } }
            query people() { match { $p: Person } return { $p.name } order { $p.name } }
            """;
    static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;
    StorageServices services;
    Omnigraph graph;

    @BeforeEach
    void setUp() {
        services = EngineFixture.services();
        graph = Omnigraph.at(dir.resolve("seed")).services(services).init(SCHEMA).block(WAIT);
    }

    @AfterEach
    void tearDown() {
        graph.close();
        EngineFixture.close(services);
    }

    @Test
    void initAndOpen() {
        Path root = dir.resolve("graph");
        // tag::init[]
        OmnigraphBuilder builder = Omnigraph.at(root).services(services);
        Omnigraph created = builder.init(SCHEMA).block();
        created.close(); // gives back this handle's share of the writer lock

        Omnigraph reader = builder.open(OpenMode.READ_ONLY).block();
        assertThat(reader.schema().catalog().node("Person")).isPresent();
        reader.close();
        // end::init[]
    }

    @Test
    void builderOptions() {
        Path root = dir.resolve("graph");
        // tag::options[]
        OmnigraphBuilder configured = Omnigraph.at(URI.create(root.toUri().toString())) // file: or s3:// URI
                .services(services)
                .lease(LeaseSettings.of(Duration.ofSeconds(30)).waiting(Duration.ofSeconds(5)))
                .writeLimits(WriteLimits.DEFAULT)
                .queryLimits(QueryLimits.DEFAULT.withTimeout(Duration.ofSeconds(10)))
                .idempotency(new IdempotencySettings(Duration.ofHours(1), Clock.systemUTC()));

        Omnigraph writer = configured.init(SCHEMA).block();
        assertThat(writer.queryLimits().timeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(writer.idempotency().window()).isEqualTo(Duration.ofHours(1));
        writer.close();
        // end::options[]
    }

    @Test
    void branchFamily() {
        // tag::branches[]
        BranchOperations branches = graph.branches();
        branches.create(BranchOperations.Create.of("draft")).block();
        graph.mutate("draft", QUERIES, "addPerson", Map.of("name", "Ada", "age", 36), WriteOptions.DEFAULT).block();

        MergeResult merged = branches.merge(BranchOperations.Merge.of("draft", "main").deletingSource()).block();
        assertThat(merged.commit()).isPresent();
        StepVerifier.create(branches.list().map(list -> list.stream().map(BranchIdentity::name).toList()))
                .expectNext(List.of("main"))   // the merge deleted the draft
                .verifyComplete();
        // end::branches[]
    }

    @Test
    void schemaFamily() {
        // tag::schema[]
        String widened = SCHEMA.replace("age: I32?", "age: I32?\n    email: String?");
        SchemaPlan plan = graph.schema().plan(widened).block();
        assertThat(plan.losesData()).isFalse();

        SchemaApplyResult applied = graph.schema().apply(SchemaOperations.Apply.of(widened).actor("docs")).block();
        assertThat(applied.applied()).isTrue();
        assertThat(graph.schema().source()).contains("email: String?");
        // end::schema[]
    }

    @Test
    void maintenanceFamily() {
        addPeople("Ada");
        addPeople("Bob");
        // tag::maintenance[]
        MaintenanceOperations maintenance = graph.maintenance();
        OptimizeResult optimized = maintenance.optimize(MaintenanceOperations.Target.main().actor("ops")).block();
        assertThat(optimized.skipped()).isEmpty(); // no table had drift that no sidecar covers

        CleanupReport preview = maintenance.cleanup(CleanupOptions.of(OptionalInt.of(1), Optional.empty(), false)).block();
        assertThat(preview.confirmed()).isFalse(); // unconfirmed: reports what would go, deletes nothing
        assertThat(maintenance.repair(MaintenanceOperations.RepairDrift.REPORT).block()).isEmpty();
        // end::maintenance[]
    }

    @Test
    void changeFamily() {
        addPeople("Ada");
        // tag::changes[]
        String head = graph.snapshot(ReadTarget.main()).block().graphCommitId().orElseThrow();
        CommitChanges page = graph.changes().commit(ChangeOperations.CommitPage.of(head).limit(100)).block();
        assertThat(page.changes()).extracting(EntityChange::id).containsExactly("Ada");

        FeedPage feed = graph.changes().poll(ChangeOperations.Poll.of("main", new FeedStart.Beginning())).block();
        assertThat(feed.cursor()).isPresent(); // resume the feed from here on the next poll
        // end::changes[]
    }

    @Test
    void mutateWithParams() {
        // tag::mutate[]
        Mono<WriteOutcome> write = graph.mutate("main", QUERIES, "addPerson",
                Map.of("name", "Ada", "age", 36), WriteOptions.DEFAULT.actor("docs"));

        StepVerifier.create(write)
                .assertNext(outcome -> {
                    assertThat(outcome.commit()).isPresent();
                    assertThat(outcome.affectedNodes()).isEqualTo(1);
                    assertThat(outcome.byType("node")).containsEntry("Person", 1L);
                })
                .verifyComplete();
        // end::mutate[]
    }

    @Test
    void loadNdjson() {
        // tag::load[]
        Flux<ByteBuffer> ndjson = Flux.just(
                        "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"age\":36}}\n",
                        "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\"}}\n")
                .map(line -> ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8)));

        WriteOutcome loaded = graph.load("main", LoadMode.MERGE, ndjson, LoadOptions.DEFAULT).block();
        assertThat(loaded.byType("node")).containsEntry("Person", 2L);
        // end::load[]
    }

    @Test
    void queryWithBackpressure() {
        addPeople("Ada", "Bob", "Cy");
        // tag::query[]
        QueryOutput output = graph.query(ReadTarget.main(), QUERIES, "people", Map.of()).block();
        assertThat(output.columns()).extracting(QueryOutput.Column::name).containsExactly("p.name");

        StepVerifier.create(output.rows(), 1)   // ask for one row at a time
                .expectNext(List.of("Ada"))
                .thenRequest(2)
                .expectNext(List.of("Bob"), List.of("Cy"))
                .verifyComplete();
        // end::query[]
    }

    @Test
    void timeTravel() {
        addPeople("Ada");
        // tag::time-travel[]
        String before = graph.snapshot(ReadTarget.main()).block().graphCommitId().orElseThrow();
        addPeople("Bob");

        QueryOutput then = graph.query(ReadTarget.commit(before), QUERIES, "people", Map.of()).block();
        StepVerifier.create(then.rows()).expectNext(List.of("Ada")).verifyComplete();
        // end::time-travel[]
    }

    @Test
    void conditionalWrite() {
        addPeople("Ada");
        // tag::if-graph-commit[]
        QueryOutput read = graph.query(ReadTarget.main(), QUERIES, "people", Map.of()).block();
        String seen = read.graphCommitId().orElseThrow();
        addPeople("Bob"); // someone else moves main meanwhile

        Mono<WriteOutcome> guarded = graph.mutate("main", QUERIES, "addPerson", Map.of("name", "Cy", "age", 3),
                WriteOptions.DEFAULT.ifGraphCommit(seen));
        StepVerifier.create(guarded)
                .expectErrorSatisfies(error -> assertThat(error).isInstanceOf(PreconditionFailed.class)
                        .extracting(e -> ((OmnigraphException) e).code()).isEqualTo(ErrorCode.PRECONDITION_FAILURE))
                .verify();
        // end::if-graph-commit[]
    }

    @Test
    void idempotencyKey() {
        // tag::idempotency[]
        WriteOptions once = WriteOptions.DEFAULT.idempotencyKey("order-4711");
        WriteOutcome first = graph.mutate("main", QUERIES, "addPerson", Map.of("name", "Ada", "age", 36), once).block();
        WriteOutcome retry = graph.mutate("main", QUERIES, "addPerson", Map.of("name", "Ada", "age", 36), once).block();

        assertThat(retry.replayed()).isTrue();
        assertThat(retry.commit()).isEqualTo(first.commit()); // one commit, the same answer twice
        // end::idempotency[]
    }

    @Test
    void cancellationBeforeArming() {
        // tag::cancel[]
        Failpoints failpoints = HandleInternals.of(graph).failpoints(); // an engine-internal test hook
        Failpoints.Parked parked = failpoints.park("mutation.after_gates");
        Failpoints.Parked settled = failpoints.park("mutation.after_attempt");
        Disposable write = graph.mutate("main", QUERIES, "addPerson", Map.of("name", "Ada", "age", 36),
                WriteOptions.DEFAULT).subscribe();
        parked.reached().block();   // the write holds its gates but has not armed its commit
        write.dispose();         // cancel
        parked.release();
        settled.reached().block();  // the detached attempt has ended and released everything
        settled.release();

        StepVerifier.create(graph.query(ReadTarget.main(), QUERIES, "people", Map.of())
                        .flatMapMany(QueryOutput::rows))
                .verifyComplete(); // nothing visible
        // end::cancel[]
        HandleInternals.of(graph).failpoints().disarm("mutation.after_gates");
        HandleInternals.of(graph).failpoints().disarm("mutation.after_attempt");
    }

    @Test
    void queryBudget() {
        addPeople("Ada", "Bob", "Cy");
        // tag::limits[]
        QueryLimits tight = QueryLimits.DEFAULT.withMaxResultRows(2).withTimeout(Duration.ofSeconds(5));
        Flux<List<Object>> rows = graph.query(ReadTarget.main(), QUERIES, "people", Map.of(), tight)
                .flatMapMany(QueryOutput::rows);

        StepVerifier.create(rows)   // three people, a budget of two rows: the ordered result fails whole
                .expectError(ResourceLimitExceeded.class)
                .verify();
        // end::limits[]
    }

    @Test
    void typedErrors() {
        addPeople("Ada");
        // tag::errors[]
        Mono<String> answer = graph.load("main", LoadMode.APPEND,
                        Flux.just(ByteBuffer.wrap("{\"type\":\"Person\",\"data\":{\"name\":\"Ada\"}}\n"
                                .getBytes(StandardCharsets.UTF_8))), LoadOptions.DEFAULT)
                .map(outcome -> "loaded")
                .onErrorResume(KeyConflict.class, conflict -> Mono.just("already there"))
                .onErrorResume(OmnigraphException.class, other -> Mono.just(other.code().wireName()));

        StepVerifier.create(answer).expectNext("already there").verifyComplete();
        // end::errors[]
    }

    private void addPeople(String... names) {
        for (String name : names) {
            graph.mutate("main", QUERIES, "addPerson", Map.of("name", name, "age", 30), WriteOptions.DEFAULT)
                    .block(WAIT);
        }
    }
}

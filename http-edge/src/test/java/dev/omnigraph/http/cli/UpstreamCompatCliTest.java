package dev.omnigraph.http.cli;

import dev.omnigraph.engine.internal.HandleInternals;
import static dev.omnigraph.http.testing.CompatFixture.DATA;
import static dev.omnigraph.http.testing.CompatFixture.QUERIES;
import static dev.omnigraph.http.testing.CompatFixture.SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Upstream differences visible at the CLI (issue 13, item 3), each asserted with the upstream's value. */
class UpstreamCompatCliTest {
    @TempDir
    Path dir;
    StorageServices services;
    Path queries;
    Path root;

    @BeforeEach
    void setUp() throws Exception {
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
        queries = Files.writeString(dir.resolve("q.gq"), QUERIES);
        root = dir.resolve("graph");
        ok("init", "--schema", Files.writeString(dir.resolve("s.pg"), SCHEMA).toString(), root.toString());
    }

    @AfterEach
    void tearDown() {
        services.tables().close();
    }

    CliRun run(String... args) {
        return CliRun.run(services, args);
    }

    CliRun ok(String... args) {
        return CliRun.ok(services, args);
    }

    CliRun load() throws Exception {
        return ok("load", root.toString(), "--data", Files.writeString(dir.resolve("d.jsonl"), DATA).toString(),
                "--mode", "append", "--json");
    }

    @Test
    void loadReportsEntitiesLoadedForEveryType() throws Exception {
        JsonNode out = load().json();
        assertThat(out.path("nodes").toString())
                .isEqualTo("[{\"name\":\"Company\",\"entities_loaded\":1},{\"name\":\"Person\",\"entities_loaded\":2}]");
        assertThat(out.path("edges").toString())
                .isEqualTo("[{\"name\":\"Knows\",\"entities_loaded\":1},{\"name\":\"WorksAt\",\"entities_loaded\":2}]");
        assertThat(out.path("total_entities").asLong()).isEqualTo(6);
    }

    @Test
    void jsonlStartsWithAMetadataLineAndDateTimesCarryMilliseconds() throws Exception {
        String commit = load().json().path("commit").path("graph_commit_id").asText();
        List<String> lines = ok("query", "people", root.toString(), "--query", queries.toString(), "--format", "jsonl")
                .out().lines().toList();
        assertThat(lines).hasSize(3);
        JsonNode meta = Json.parse(lines.get(0), "metadata");
        assertThat(meta.path("kind").asText()).isEqualTo("metadata");
        assertThat(meta.path("query_name").asText()).isEqualTo("people");
        assertThat(meta.path("graph_commit_id").asText()).isEqualTo(commit);
        assertThat(meta.path("columns").toString()).isEqualTo("[\"p.name\",\"p.seen\"]");
        assertThat(Json.parse(lines.get(1), "row").path("p.seen").asText()).isEqualTo("2026-04-01T08:30:00.000Z");
        assertThat(Json.parse(lines.get(2), "row").path("p.seen").isNull()).isTrue();
        for (String format : List.of("table", "csv", "json")) {
            assertThat(ok("query", "people", root.toString(), "--query", queries.toString(), "--format", format).out())
                    .as(format).contains("2026-04-01T08:30:00.000Z");
        }
        assertThat(ok("export", root.toString()).out()).contains("\"seen\":\"2026-04-01T08:30:00.000Z\"");
    }

    @Test
    void affectedCountsAreStatementsAndEnumBreachesAreValidationErrors() {
        JsonNode out = ok("mutate", "insertThenUpdate", root.toString(), "--query", queries.toString(),
                "--params", "{\"n\":\"Ada\"}", "--json").json();
        assertThat(out.path("affected_nodes").asLong()).isEqualTo(2);
        CliRun bad = run("mutate", "setStatus", root.toString(), "--query", queries.toString(),
                "--params", "{\"name\":\"Ada\",\"s\":\"gone\"}", "--json");
        assertThat(bad.code()).isEqualTo(1);
        assertThat(bad.err()).startsWith("error[validation_error]: ");
        assertThat(bad.json().path("validation_error").path("property").asText()).isEqualTo("status");
    }

    @Test
    void recoveryRequiredNamesRecoveryRunWhichResolvesThePendingSidecar() {
        Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
        HandleInternals.of(graph).failpoints().arm("mutation.after_commit:1", new Failpoints.Action.Error());
        HandleInternals.of(graph).failpoints().arm("recovery.before_plan_write", new Failpoints.Action.Error());
        assertThatThrownBy(() -> graph.mutate("main", QUERIES, "addPair", Map.of("a", "Ann", "b", "Ben"),
                WriteOptions.DEFAULT).block()).isInstanceOfSatisfying(RecoveryRequired.class,
                e -> assertThat(e.getMessage()).contains("omnigraph recovery run <root>"));
        HandleInternals.of(graph).failpoints().disarm("mutation.after_commit:1");
        HandleInternals.of(graph).failpoints().disarm("recovery.before_plan_write");
        assertThat(HandleInternals.of(graph).pendingSidecars().collectList().block()).hasSize(1);
        CliRun repair = run("repair", root.toString());
        assertThat(repair.code()).isEqualTo(1);
        assertThat(repair.err()).contains("omnigraph recovery run");

        JsonNode recovered = ok("recovery", "run", root.toString(), "--json").json();
        assertThat(recovered.path("recoveries")).hasSize(1);
        assertThat(recovered.path("recoveries").get(0).path("kind").asText()).isEqualTo("rolled_back");
        assertThat(HandleInternals.of(graph).pendingSidecars().collectList().block()).isEmpty();
        assertThat(ok("recovery", "run", root.toString()).out()).contains("nothing to recover");
    }
}

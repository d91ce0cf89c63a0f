package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code snapshot --snapshot <commit>} lists the datasets and versions a commit pins (what docs/spark.md hands to
 * Spark): an earlier commit keeps its earlier versions after later writes; an unknown commit is {@code not_found}.
 */
class SnapshotAtCommitCliTest {
    @TempDir
    Path dir;

    private final StorageServices services =
            new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());

    @AfterEach
    void close() {
        services.tables().close();
    }

    @Test
    void snapshotAtACommitShowsTheVersionsItPins() throws Exception {
        Path schema = Files.writeString(dir.resolve("social.pg"), HttpFixture.SCHEMA);
        Path data = Files.writeString(dir.resolve("people.jsonl"), HttpFixture.PEOPLE);
        String root = dir.resolve("g").toString();
        CliRun.ok(services, "init", "--schema", schema.toString(), root);
        String first = CliRun.ok(services, "load", root, "--data", data.toString(), "--mode", "append", "--json")
                .json().path("commit").path("graph_commit_id").asText();
        Map<String, Long> atFirst = versions(CliRun.ok(services, "snapshot", root, "--json").json());

        CliRun.ok(services, "load", root, "--data", data.toString(), "--mode", "merge");
        Map<String, Long> atHead = versions(CliRun.ok(services, "snapshot", root, "--json").json());
        assertThat(atHead).isNotEqualTo(atFirst);

        JsonNode pinned = CliRun.ok(services, "snapshot", root, "--snapshot", first, "--json").json();
        assertThat(pinned.path("graph_commit_id").asText()).isEqualTo(first);
        assertThat(versions(pinned)).isEqualTo(atFirst);
        assertThat(CliRun.ok(services, "snapshot", root, "--snapshot", first).out()).contains("head " + first);

        CliRun unknown = CliRun.run(services, "snapshot", root, "--snapshot", "01NOSUCHCOMMIT0000000000000");
        assertThat(unknown.code()).isEqualTo(1);
        assertThat(unknown.err()).startsWith("error[not_found]: ");
    }

    private static Map<String, Long> versions(JsonNode snapshot) {
        Map<String, Long> out = new HashMap<>();
        snapshot.path("datasets").forEach(d -> out.put(d.path("dataset_path").asText(),
                d.path("published_dataset_version").asLong()));
        return out;
    }
}

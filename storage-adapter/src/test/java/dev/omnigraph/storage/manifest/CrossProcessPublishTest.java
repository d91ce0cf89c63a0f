package dev.omnigraph.storage.manifest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.LanceTableStorage;
import dev.omnigraph.storage.testing.ChildJvm;
import dev.omnigraph.storage.testing.StorageFixture;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two JVM processes publish against the same expected head: exactly one lands, the other gets a conflict. */
class CrossProcessPublishTest {
    @TempDir
    Path dir;

    @Test
    void twoProcessesRacingOnOneHeadLandExactlyOne() throws Exception {
        Path root = dir.resolve("graph");
        String genesisId;
        try (LanceTableStorage tables = StorageFixture.newTableStorage()) {
            genesisId = ManifestFixture.init(new ManifestStore(root.toString(), tables)).id();
        }
        List<Process> children = new ArrayList<>();
        List<BufferedReader> outputs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Process child = ChildJvm.start(PublishRaceMain.class, dir.resolve("tmp" + i),
                    List.of(root.toString(), genesisId), List.of());
            children.add(child);
            outputs.add(new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)));
        }
        List<String> transcripts = new ArrayList<>();
        for (BufferedReader output : outputs) {
            String line;
            StringBuilder seen = new StringBuilder();
            while ((line = output.readLine()) != null && !line.equals("READY")) {
                seen.append(line).append('\n');
            }
            assertThat(line).as("child never got ready:\n" + seen).isEqualTo("READY");
        }
        for (Process child : children) {
            child.getOutputStream().write('g');
            child.getOutputStream().flush();
        }
        List<String> results = new ArrayList<>();
        for (int i = 0; i < children.size(); i++) {
            StringBuilder rest = new StringBuilder();
            String line;
            while ((line = outputs.get(i).readLine()) != null) {
                rest.append(line).append('\n');
                if (line.startsWith("LANDED") || line.startsWith("CONFLICT")) {
                    results.add(line);
                }
            }
            assertThat(children.get(i).waitFor(60, TimeUnit.SECONDS)).isTrue();
            transcripts.add(rest.toString());
        }
        assertThat(results).as(String.join("\n---\n", transcripts)).hasSize(2);
        assertThat(results).filteredOn(r -> r.startsWith("LANDED")).hasSize(1);
        assertThat(results).filteredOn(r -> r.startsWith("CONFLICT read_set_conflict")).hasSize(1);

        try (LanceTableStorage tables = StorageFixture.newTableStorage()) {
            ManifestStore store = new ManifestStore(root.toString(), tables);
            String winner = results.stream().filter(r -> r.startsWith("LANDED")).findFirst().orElseThrow().substring(7);
            assertThat(store.load("main").block().head()).contains(winner);
            assertThat(store.commits("main").collectList().block()).hasSize(2);
        }
    }
}

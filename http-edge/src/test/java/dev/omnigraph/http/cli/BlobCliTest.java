package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code blob get}: whole bytes to stdout, a slice, --out; export then re-load keeps the bytes. */
class BlobCliTest {
    final StorageServices services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());

    @TempDir
    Path dir;

    @AfterEach
    void tearDown() {
        services.tables().close();
    }

    String id(Path root) {
        return CliRun.ok(services, "query", "q", root.toString(), "-e",
                "query q() { match { $f: File } return { $f.id } }", "--json").json().path("rows").get(0).path("f.id").asText();
    }

    @Test
    void getSliceOutAndRoundTrip() throws Exception {
        Path schema = Files.writeString(dir.resolve("f.pg"), "node File {\n  name: String @key\n  data: Blob?\n}\n");
        Path data = Files.writeString(dir.resolve("f.jsonl"),
                "{\"type\":\"File\",\"data\":{\"name\":\"a\",\"data\":\"base64:aGVsbG8gd29ybGQ=\"}}\n");
        Path root = dir.resolve("g");
        CliRun.ok(services, "init", "--schema", schema.toString(), root.toString());
        CliRun.ok(services, "load", root.toString(), "--data", data.toString(), "--mode", "append");
        String id = id(root);
        assertThat(CliRun.ok(services, "blob", "get", root.toString(), "File", id, "data").out()).isEqualTo("hello world");
        assertThat(CliRun.ok(services, "blob", "get", root.toString(), "File", id, "data", "--offset", "6", "--length", "3")
                .out()).isEqualTo("wor");
        Path out = dir.resolve("out.bin");
        CliRun.ok(services, "blob", "get", root.toString(), "File", id, "data", "--out", out.toString());
        assertThat(Files.readString(out, StandardCharsets.UTF_8)).isEqualTo("hello world");
        assertThat(CliRun.run(services, "blob", "get", root.toString(), "File", "nope", "data").code()).isEqualTo(OmnigraphCli.ERROR);
        assertThat(CliRun.ok(services, "blob", "get", root.toString(), "File", id, "data", "--offset", "8", "--length", "50")
                .out()).as("a length past the end is cut there").isEqualTo("rld");
        // An offset past the end is a typed error, not an empty output.
        CliRun past = CliRun.run(services, "blob", "get", root.toString(), "File", id, "data", "--offset", "11");
        assertThat(past.code()).isEqualTo(OmnigraphCli.ERROR);
        assertThat(past.err()).contains("starts past its end (11 bytes)");

        Path exported = Files.writeString(dir.resolve("export.jsonl"), CliRun.ok(services, "export", root.toString()).out());
        Path copy = dir.resolve("copy");
        CliRun.ok(services, "init", "--schema", schema.toString(), copy.toString());
        CliRun.ok(services, "load", copy.toString(), "--data", exported.toString(), "--mode", "append");
        assertThat(CliRun.ok(services, "blob", "get", copy.toString(), "File", id(copy), "data").out()).isEqualTo("hello world");
    }
}

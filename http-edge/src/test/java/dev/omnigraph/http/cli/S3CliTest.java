package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.storage.testing.S3TestServer;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI on an {@code s3://} root of the loopback S3 server: endpoint through {@code --s3-endpoint}, credentials
 * through the AWS default provider chain (here its system-property step).
 */
class S3CliTest {
    static S3TestServer server;
    static StorageServices services;

    @BeforeAll
    static void start() throws Exception {
        server = S3TestServer.start();
        server.root("cli", "unused"); // creates the bucket
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
        System.setProperty("aws.accessKeyId", S3TestServer.ACCESS_KEY);
        System.setProperty("aws.secretAccessKey", S3TestServer.SECRET_KEY);
    }

    @AfterAll
    static void stop() throws Exception {
        System.clearProperty("aws.accessKeyId");
        System.clearProperty("aws.secretAccessKey");
        services.tables().close();
        server.close();
    }

    @Test
    void initLoadQueryAndExportAnS3Root(@TempDir Path dir) throws Exception {
        String endpoint = server.endpoint().toString();
        String root = "s3://cli/graphs/social";
        Path schema = Files.writeString(dir.resolve("social.pg"), HttpFixture.SCHEMA);
        Path data = Files.writeString(dir.resolve("people.jsonl"), HttpFixture.PEOPLE);

        CliRun init = CliRun.ok(services, "--s3-endpoint", endpoint, "init", "--schema", schema.toString(), root, "--json");
        assertThat(init.out()).contains("\"uri\":\"s3://cli/graphs/social\"");
        CliRun.ok(services, "--s3-endpoint", endpoint, "load", root, "--data", data.toString(), "--mode", "append");
        CliRun exported = CliRun.ok(services, "--s3-endpoint", endpoint, "export", root);
        assertThat(exported.out().lines().count()).isEqualTo(HttpFixture.PEOPLE.lines().count());
        CliRun snapshot = CliRun.ok(services, "--s3-endpoint", endpoint, "snapshot", root);
        assertThat(snapshot.out()).contains("graph s3://cli/graphs/social");
    }

    @Test
    void cleanupPreviewsThenDeletesOnAnS3Root(@TempDir Path dir) throws Exception {
        String endpoint = server.endpoint().toString();
        String root = "s3://cli/graphs/cleaned";
        Path schema = Files.writeString(dir.resolve("social.pg"), HttpFixture.SCHEMA);
        Path data = Files.writeString(dir.resolve("people.jsonl"), HttpFixture.PEOPLE);
        CliRun.ok(services, "--s3-endpoint", endpoint, "init", "--schema", schema.toString(), root);
        CliRun.ok(services, "--s3-endpoint", endpoint, "load", root, "--data", data.toString(), "--mode", "append");
        CliRun.ok(services, "--s3-endpoint", endpoint, "load", root, "--data", data.toString(), "--mode", "merge");

        var preview = CliRun.ok(services, "--s3-endpoint", endpoint, "cleanup", root, "--keep", "1", "--json").json();
        assertThat(preview.get("confirmed").asBoolean()).isFalse();
        assertThat(preview.get("versions").asLong()).isPositive();
        var done = CliRun.ok(services, "--s3-endpoint", endpoint, "cleanup", root, "--keep", "1", "--confirm", "--json")
                .json();
        assertThat(done.get("confirmed").asBoolean()).isTrue();
        assertThat(done.get("versions").asLong()).isEqualTo(preview.get("versions").asLong());
        var again = CliRun.ok(services, "--s3-endpoint", endpoint, "cleanup", root, "--keep", "1", "--json").json();
        assertThat(again.get("versions").asLong()).as("nothing left to collect").isZero();
        CliRun exported = CliRun.ok(services, "--s3-endpoint", endpoint, "export", root);
        assertThat(exported.out().lines().count()).isEqualTo(HttpFixture.PEOPLE.lines().count());
    }

    @Test
    void aBadRootIsAUsageError() {
        CliRun run = CliRun.run(services, "snapshot", "gs://bucket/g");
        assertThat(run.code()).isEqualTo(OmnigraphCli.ERROR);
        assertThat(run.err()).contains("scheme 'gs' is not supported");
    }
}

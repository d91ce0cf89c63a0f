package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.lease.LeaseSettings;
import dev.omnigraph.storage.lease.WriterLease;
import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.storage.testing.ChildJvm;
import dev.omnigraph.storage.testing.S3TestServer;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CLI closes every graph it opened before it exits, so a lease object is given back at once rather than held
 * until it expires: a second CLI process on the same root (S3, or a local root with the lease object) gets it
 * immediately. Leases here last an hour, so only the give-back can let the second command in.
 */
class CliLeaseTest {
    static S3TestServer server;
    static StorageServices services;

    @BeforeAll
    static void start() throws Exception {
        server = S3TestServer.start();
        server.root("leases", "unused"); // creates the bucket
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
    }

    @AfterAll
    static void stop() throws Exception {
        services.tables().close();
        server.close();
    }

    @Test
    void anInProcessRunGivesTheLeaseBackBeforeItReturns(@TempDir Path dir) throws Exception {
        GraphRoot.S3 root = server.root("leases", "in-process");
        String endpoint = server.endpoint().toString();
        Path schema = Files.writeString(dir.resolve("social.pg"), HttpFixture.SCHEMA);
        Path data = Files.writeString(dir.resolve("people.jsonl"), HttpFixture.PEOPLE);
        System.setProperty("aws.accessKeyId", S3TestServer.ACCESS_KEY);
        System.setProperty("aws.secretAccessKey", S3TestServer.SECRET_KEY);
        try {
            CliRun.ok(services, "--s3-endpoint", endpoint, "init", "--schema", schema.toString(), root.uri());
            assertThat(lease(root).path("released").asBoolean()).as("released after init").isTrue();
            CliRun.ok(services, "--s3-endpoint", endpoint, "load", root.uri(), "--data", data.toString(), "--mode", "append");
            assertThat(lease(root).path("released").asBoolean()).as("released after load").isTrue();
            assertThat(lease(root).path("epoch").asLong()).isEqualTo(2);
        } finally {
            System.clearProperty("aws.accessKeyId");
            System.clearProperty("aws.secretAccessKey");
        }
    }

    @Test
    void aSecondCliProcessOnAnS3RootGetsTheLeaseAtOnce(@TempDir Path dir) throws Exception {
        GraphRoot.S3 root = server.root("leases", "processes");
        List<String> env = new ArrayList<>(server.environment().entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue()).toList());
        env.add(LeaseSettings.ENV_DURATION + "=PT1H");
        twoCommandsInTurn(dir, root.uri(), env);
        assertThat(lease(root).path("epoch").asLong()).as("init, then one epoch per command").isEqualTo(3);
    }

    @Test
    void aSecondCliProcessOnALocalRootWithTheLeaseObjectGetsItAtOnce(@TempDir Path dir) throws Exception {
        Path root = dir.resolve("graph");
        twoCommandsInTurn(dir, root.toString(), List.of(LeaseSettings.ENV_MODE + "=object", LeaseSettings.ENV_DURATION + "=PT1H"));
        assertThat(Files.readString(root.resolve(WriterLease.KEY))).contains("\"released\":true").contains("\"epoch\":3");
    }

    /** {@code init} and two {@code load --mode merge}, each its own CLI process; every one must succeed. */
    private static void twoCommandsInTurn(Path dir, String root, List<String> env) throws Exception {
        Path schema = Files.writeString(dir.resolve("social.pg"), HttpFixture.SCHEMA);
        Path data = Files.writeString(dir.resolve("people.jsonl"), HttpFixture.PEOPLE);
        cli(dir, env, "init", "--schema", schema.toString(), root);
        cli(dir, env, "load", root, "--data", data.toString(), "--mode", "merge");
        cli(dir, env, "load", root, "--data", data.toString(), "--mode", "merge");
    }

    private static void cli(Path dir, List<String> env, String... args) throws Exception {
        ChildJvm.Finished child = ChildJvm.run(OmnigraphCli.class, dir.resolve("tmp"), List.of(args), env, java.time.Duration.ofSeconds(120));
        String output = child.output();
        assertThat(child.exitValue()).as(String.join(" ", args) + ":\n" + output).isZero();
    }

    private static com.fasterxml.jackson.databind.JsonNode lease(GraphRoot.S3 root) {
        byte[] bytes = services.objectStore(root).get(WriterLease.KEY).block().orElseThrow();
        return Json.parse(new String(bytes, StandardCharsets.UTF_8), WriterLease.KEY);
    }
}

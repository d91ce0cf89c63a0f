package dev.omnigraph.engine.crash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.testing.ChildJvm;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A keyed write whose process dies after its effects landed but before its publish: the next read-write open
 * rolls it forward from its sidecar, and the record travels with it, so the client's retry is answered with
 * that commit instead of inserting a second note.
 */
class IdempotentCrashTest {
    final StorageServices services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());

    @AfterEach
    void tearDown() {
        services.tables().close();
    }

    @Test
    void aRolledForwardKeyedWriteAnswersItsRetry(@TempDir Path dir) throws Exception {
        Path root = dir.resolve("graph");
        // The child must be the root's only writer process: give the writer lock back first.
        Omnigraph.init(services, root, CrashScenario.SCHEMA).block().close();

        ChildJvm.Finished child = ChildJvm.run(IdempotentCrashMain.class, dir.resolve("tmp"), List.of(root.toString()),
                List.of("OMNIGRAPH_FAILPOINTS=mutation.before_manifest_commit=error,mutation.after_confirm=exit"), java.time.Duration.ofSeconds(120));
        String output = child.output();
        assertThat(child.exitValue()).as(output).isEqualTo(137);

        Omnigraph reopened = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
        List<GraphCommit> commits = reopened.commits("main").collectList().block();
        GraphCommit rolledForward = commits.get(0);
        assertThat(rolledForward.operation()).isEqualTo("mutation:addNote");

        WriteOutcome retry = reopened.mutate("main", IdempotentCrashMain.QUERY, "addNote", IdempotentCrashMain.params(),
                WriteOptions.DEFAULT.idempotencyKey(IdempotentCrashMain.KEY)).block();
        assertThat(retry.replayed()).isTrue();
        assertThat(retry.commit().map(GraphCommit::id)).contains(rolledForward.id());
        assertThat(retry.affectedNodes()).isEqualTo(1);
        assertThat(reopened.commits("main").collectList().block()).hasSameSizeAs(commits);
    }
}

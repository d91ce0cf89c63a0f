package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.storage.testing.S3TestServer;
import dev.omnigraph.storage.testing.StorageFixture;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Are Lance's own commits atomic on an S3 endpoint? Two writers stage appends from one read version and commit at
 * once; the server holds the first PUT of the next manifest until the second writer's PUT of the same manifest
 * arrives, then lets them through one after the other — the race made deterministic. Lance writes the
 * manifest of version N with a conditional PUT ({@code If-None-Match: *}), so on an endpoint that honours it
 * exactly one writer wins N and the other rebases onto N+1; on one that ignores it both "win" N and one commit is
 * silently lost — which is why roots on such endpoints are refused at open.
 */
class LanceS3CommitRaceTest {
    private static final Schema PEOPLE = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Utf8()), null),
            Field.nullable("age", new ArrowType.Int(64, true))));

    private final LanceTableStorage storage = StorageFixture.newTableStorage();

    @AfterEach
    void close() {
        storage.close();
    }

    private record Race(List<CommittedVersion> committed, List<Boolean> manifestPuts, TableSnapshot after) {
    }

    private Race race(S3TestServer server, String bucket) throws Exception {
        GraphRoot.S3 root = server.root(bucket, "graph");
        LanceStorageOptions.register(root.uri(), root.lanceOptions());
        TableSnapshot base = storage.create(root.uri() + "/nodes/people", PEOPLE).block();
        // Lance 7 names manifests u64::MAX - version, in 20 digits.
        String contested = "_versions/" + Long.toUnsignedString(-1L - (base.version() + 1)) + ".manifest";
        StagedHandle a = storage.stageAppend(base, people(0, 2), Map.of()).block();
        StagedHandle b = storage.stageAppend(base, people(2, 4), Map.of()).block();

        CountDownLatch secondArrived = new CountDownLatch(1);
        CountDownLatch firstDone = new CountDownLatch(1);
        AtomicInteger arrivals = new AtomicInteger();
        ConcurrentLinkedQueue<Boolean> outcomes = new ConcurrentLinkedQueue<>();
        server.hook(new S3TestServer.PutHook() {
            @Override
            public void before(String key) {
                if (!key.endsWith(contested)) {
                    return;
                }
                try {
                    if (arrivals.incrementAndGet() == 1) {
                        assertThat(secondArrived.await(60, TimeUnit.SECONDS)).as("second writer's manifest PUT").isTrue();
                    } else {
                        secondArrived.countDown();
                        assertThat(firstDone.await(60, TimeUnit.SECONDS)).as("first writer's manifest PUT").isTrue();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            @Override
            public void after(String key, boolean stored) {
                if (key.endsWith(contested)) {
                    outcomes.add(stored);
                    firstDone.countDown();
                }
            }
        });
        try {
            List<CommittedVersion> committed = Mono.zip(storage.commitStaged(a), storage.commitStaged(b))
                    .map(both -> List.of(both.getT1(), both.getT2())).block();
            return new Race(committed, List.copyOf(outcomes), storage.open(base.ref(), OptionalLong.empty()).block());
        } finally {
            server.hook(new S3TestServer.PutHook() { });
        }
    }

    @Test
    void twoWritersRacingForOneVersionOnS3ExactlyOneWins() throws Exception {
        try (S3TestServer server = S3TestServer.start()) {
            Race race = race(server, "race-honoured");
            assertThat(race.manifestPuts()).as("both writers PUT the same manifest; one was refused")
                    .containsExactlyInAnyOrder(true, false);
            assertThat(race.committed().stream().map(CommittedVersion::version).sorted().toList())
                    .containsExactly(race.after().version() - 1, race.after().version());
            assertThat(race.after().rowCount()).isEqualTo(4);
        }
    }

    @Test
    void onAnEndpointIgnoringConditionalPutsBothWinAndACommitIsLost() throws Exception {
        try (S3TestServer server = S3TestServer.start(S3TestServer.Conditions.IGNORED)) {
            Race race = race(server, "race-ignored");
            assertThat(race.manifestPuts()).containsExactly(true, true);
            assertThat(race.committed().get(0).version()).isEqualTo(race.committed().get(1).version());
            assertThat(race.after().rowCount()).isEqualTo(2);
        }
    }

    private static List<Map<String, Object>> people(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> Map.<String, Object>of("id", "p" + i, "age", (long) i))
                .collect(Collectors.toList());
    }
}

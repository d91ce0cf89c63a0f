package dev.omnigraph.engine;

import static dev.omnigraph.engine.EngineFixture.SOCIAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.RootLock;
import dev.omnigraph.storage.error.Conflict;
import dev.omnigraph.storage.error.LeaseLost;
import dev.omnigraph.storage.lease.LeaseSettings;
import dev.omnigraph.storage.testing.TestClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two writer "processes" in one JVM: two handles on one root holding the lease object under two owners, each judging
 * expiry by its own clock. The paused holder's clock never moves, so it believes it still holds the lease; only the
 * epoch the new holder fenced the manifest with stops it.
 */
class FencedWriterTest extends GraphRootTestBase {
    private static final Duration LEASE = Duration.ofMinutes(10);
    private static final String QUERIES = """
            query addPerson($name: String) { insert Person { name: $name } }
            query people() { match { $p: Person } return { $p.name } }
            """;

    TestClock clock;

    @BeforeEach
    void startClock() {
        clock = TestClock.startingNow();
    }

    private static LeaseSettings process(long pid, Clock judge) {
        return LeaseSettings.of(LEASE).renewingEvery(LEASE.minusSeconds(1)).withObjectLease()
                .ownedBy(new RootLock.Holder(pid, "host-" + pid, Instant.parse("2026-01-01T00:00:00Z"))).withClock(judge);
    }

    private static void add(Omnigraph graph, String name) {
        graph.mutate("main", QUERIES, "addPerson", Map.of("name", name), WriteOptions.DEFAULT).block();
    }

    private static List<Object> people(Omnigraph graph) {
        return graph.query(ReadTarget.main(), QUERIES, "people", Map.of())
                .flatMapMany(QueryOutput::rows).map(row -> row.get(0)).sort((x, y) -> x.toString().compareTo(y.toString()))
                .collectList().block();
    }

    @Test
    void aHolderWhoseLeaseWasTakenOverCannotWriteAndChangesNothing() {
        Omnigraph.init(services, root, SOCIAL).block().closeAsync().block();
        Omnigraph paused = Omnigraph.open(services, root, OpenMode.READ_WRITE,
                process(1, Clock.fixed(clock.instant(), ZoneOffset.UTC))).block();
        add(paused, "Ada");

        assertThatThrownBy(() -> Omnigraph.open(services, root, OpenMode.READ_WRITE, process(2, clock)).block())
                .as("refused while the lease is valid").isInstanceOf(Conflict.class)
                .hasMessageContaining("process 1 on host host-1").hasMessageContaining("writer epoch 1");

        clock.advance(LEASE.plusSeconds(1));
        Omnigraph taker = Omnigraph.open(services, root, OpenMode.READ_WRITE, process(2, clock)).block();
        GraphSnapshot fenced = taker.snapshot(ReadTarget.main()).block();
        assertThat(fenced.manifest().writerEpoch()).isEqualTo(2);

        assertThatThrownBy(() -> add(paused, "Bob")).isInstanceOf(LeaseLost.class)
                .hasMessageContaining("writer epoch 2");
        GraphSnapshot after = taker.snapshot(ReadTarget.main()).block();
        assertThat(after.manifestVersion()).isEqualTo(fenced.manifestVersion());
        assertThat(after.tables()).isEqualTo(fenced.tables());
        assertThat(taker.pendingSidecars().collectList().block()).isEmpty();

        add(taker, "Cy");
        assertThat(people(taker)).containsExactly("Ada", "Cy");
        try (Omnigraph reader = Omnigraph.open(services, root, OpenMode.READ_ONLY).block()) {
            assertThat(people(reader)).containsExactly("Ada", "Cy");
        }
        paused.closeAsync().block();
        taker.closeAsync().block();
    }

    @Test
    void aServerOnAHeldRootFollowsItServingReadsAndRefusingWritesWithTheHolderNamed() {
        Omnigraph.init(services, root, SOCIAL).block().closeAsync().block();
        Omnigraph writer = Omnigraph.open(services, root, OpenMode.READ_WRITE, process(1, clock)).block();
        add(writer, "Ada");

        Omnigraph follower = Omnigraph.openServing(services, root, process(2, clock)).block();
        assertThat(follower.mode()).isEqualTo(OpenMode.READ_ONLY);
        assertThat(people(follower)).containsExactly("Ada");
        assertThatThrownBy(() -> add(follower, "Bob")).isInstanceOf(LeaseLost.class)
                .hasMessageContaining("process 1 on host host-1")
                .satisfies(e -> assertThat(((LeaseLost) e).code().httpStatus()).isEqualTo(503));

        writer.closeAsync().block();
        Omnigraph next = Omnigraph.openServing(services, root, process(2, clock)).block();
        try {
            assertThat(next.mode()).isEqualTo(OpenMode.READ_WRITE);
            add(next, "Bob");
            assertThat(people(next)).containsExactly("Ada", "Bob");
        } finally {
            next.closeAsync().block(); // the lease is given back before @TempDir is deleted
        }
    }

    @Test
    void aWriterThatKnowsItsLeaseExpiredStopsWritingAtOnce() {
        Omnigraph.init(services, root, SOCIAL).block().closeAsync().block();
        Omnigraph writer = Omnigraph.open(services, root, OpenMode.READ_WRITE, process(1, clock)).block();
        try {
            clock.advance(LEASE.plusSeconds(1));
            assertThat(writer.writerTenureLost()).isTrue();
            assertThatThrownBy(() -> add(writer, "Ada")).isInstanceOf(LeaseLost.class)
                    .hasMessageContaining("expired unrenewed");
        } finally {
            writer.closeAsync().block(); // the lease is given back before @TempDir is deleted
        }
    }

    @Test
    void aClosedHolderHandsTheLeaseOnAtOnceWithTheNextEpoch() {
        Omnigraph.init(services, root, SOCIAL).block().closeAsync().block();
        Omnigraph first = Omnigraph.open(services, root, OpenMode.READ_WRITE, process(1, clock)).block();
        first.closeAsync().block();
        Omnigraph second = Omnigraph.open(services, root, OpenMode.READ_WRITE, process(2, clock)).block();
        try {
            assertThat(second.snapshot(ReadTarget.main()).block().manifest().writerEpoch()).isEqualTo(2);
            add(second, "Ada");
            assertThat(second.snapshot(ReadTarget.main()).block().manifest().writerEpoch()).isEqualTo(2);
        } finally {
            second.closeAsync().block(); // the lease is given back before @TempDir is deleted
        }
    }
}

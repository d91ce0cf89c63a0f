package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.gate.Gates;
import dev.omnigraph.engine.internal.HandleInternals;
import dev.omnigraph.engine.read.QueryLimits;
import dev.omnigraph.engine.write.IdempotencySettings;
import dev.omnigraph.engine.write.WriteLimits;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.lease.LeaseSettings;
import dev.omnigraph.storage.root.GraphRoot;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The front door: the immutable builder, the roots it accepts, and the settings it hands to every handle. */
class OmnigraphBuilderTest {
    static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;
    StorageServices services;

    @BeforeEach
    void setUp() {
        services = EngineFixture.services();
    }

    @AfterEach
    void tearDown() {
        EngineFixture.close(services);
    }

    @Test
    void everySetterReturnsANewBuilderAndLeavesTheOriginalAlone() {
        OmnigraphBuilder base = Omnigraph.at(dir.resolve("g"));
        OmnigraphBuilder tuned = base.services(services).lease(LeaseSettings.of(Duration.ofSeconds(9)))
                .writeLimits(new WriteLimits(10, 1 << 20)).queryLimits(QueryLimits.DEFAULT.withMaxResultRows(5))
                .idempotency(new IdempotencySettings(Duration.ofMinutes(3), Clock.systemUTC()));

        assertThat(base.services()).isSameAs(StorageServices.shared());
        assertThat(base.lease()).isEmpty();
        assertThat(base.writeLimits()).isEqualTo(WriteLimits.DEFAULT);
        assertThat(base.queryLimits()).isEqualTo(QueryLimits.DEFAULT);
        assertThat(base.idempotency()).isEmpty();
        assertThat(tuned.services()).isSameAs(services);
        assertThat(tuned.lease().map(LeaseSettings::duration)).contains(Duration.ofSeconds(9));
        assertThat(tuned.writeLimits().maxEntitiesPerTable()).isEqualTo(10);
        assertThat(tuned.queryLimits().maxResultRows()).isEqualTo(5);
        assertThat(tuned.idempotency().map(IdempotencySettings::window)).contains(Duration.ofMinutes(3));
    }

    @Test
    void rootsComeAsPathsFileUrisOrS3Uris() {
        Path local = dir.resolve("g");
        assertThat(Omnigraph.at(local).root()).isEqualTo(new GraphRoot.Local(local));
        assertThat(Omnigraph.at(local.toUri()).root()).isEqualTo(new GraphRoot.Local(local));
        assertThat(Omnigraph.at(URI.create("file:" + local)).root()).isEqualTo(new GraphRoot.Local(local));
        assertThat(Omnigraph.at(URI.create("s3://bucket/graphs/g")).root()).isInstanceOfSatisfying(GraphRoot.S3.class,
                s3 -> assertThat(s3.displayUri()).isEqualTo("s3://bucket/graphs/g"));
        assertThatThrownBy(() -> Omnigraph.at(URI.create("http://example.com/g"))).isInstanceOf(BadRequest.class);
        assertThatThrownBy(() -> Omnigraph.at(URI.create("file:relative"))).isInstanceOf(BadRequest.class);
    }

    @Test
    void theHandleRunsWithTheBuildersSettings() {
        OmnigraphBuilder builder = Omnigraph.at(dir.resolve("g")).services(services)
                .writeLimits(new WriteLimits(7, 1 << 20))
                .queryLimits(QueryLimits.DEFAULT.withTimeout(Duration.ofSeconds(3)))
                .idempotency(new IdempotencySettings(Duration.ofMinutes(2), Clock.systemUTC()));
        Omnigraph created = builder.init(EngineFixture.SOCIAL).block(WAIT);
        try {
            assertThat(created.limits().maxEntitiesPerTable()).isEqualTo(7);
            assertThat(created.queryLimits().timeout()).isEqualTo(Duration.ofSeconds(3));
            assertThat(created.idempotency().window()).isEqualTo(Duration.ofMinutes(2));
        } finally {
            created.close();
        }
        Omnigraph reader = builder.open(OpenMode.READ_ONLY).block(WAIT);
        try {
            assertThat(reader.mode()).isEqualTo(OpenMode.READ_ONLY);
            assertThat(reader.limits().maxEntitiesPerTable()).isEqualTo(7);
        } finally {
            reader.close();
        }
    }

    @Test
    void openServingOnAFreeRootIsTheWriter() {
        OmnigraphBuilder builder = Omnigraph.at(dir.resolve("g")).services(services);
        builder.init(EngineFixture.SOCIAL).block(WAIT).close();
        Omnigraph serving = builder.openServing().block(WAIT);
        try {
            assertThat(serving.mode()).isEqualTo(OpenMode.READ_WRITE);
            assertThat(serving.branches().create("side").block(WAIT).identity().name()).isEqualTo("side");
            assertThat(serving.branches().list().block(WAIT)).extracting(b -> b.name()).containsExactly("main", "side");
        } finally {
            serving.close();
        }
    }

    @Test
    @SuppressWarnings("removal")
    void theDeprecatedStaticsAreTheBuilder() {
        Omnigraph created = Omnigraph.init(services, dir.resolve("g"), EngineFixture.SOCIAL).block(WAIT);
        created.close();
        Omnigraph reopened = Omnigraph.open(services, dir.resolve("g"), OpenMode.READ_WRITE).block(WAIT);
        try {
            assertThat(reopened.location()).isEqualTo(created.location());
            assertThat(reopened.schema().source()).isEqualTo(EngineFixture.SOCIAL);
            assertThat(reopened.createBranch("old", Optional.empty()).block(WAIT).from()).isEqualTo("main");
        } finally {
            reopened.close();
        }
    }

    @Test
    void internalsAreReachedOnlyThroughHandleInternals() {
        Omnigraph graph = Omnigraph.at(dir.resolve("g")).services(services).init(EngineFixture.SOCIAL).block(WAIT);
        try {
            assertThat(HandleInternals.of(graph).gates()).isSameAs(Gates.forRoot(graph.location().uri()));
            assertThat(HandleInternals.of(graph).pendingSidecars().collectList().block(WAIT)).isEmpty();
            assertThat(PublicApiSurfaceTest.isInternal(Gates.class)).isTrue();
            assertThat(PublicApiSurfaceTest.isInternal(HandleInternals.class)).isTrue();
            assertThat(PublicApiSurfaceTest.isInternal(dev.omnigraph.storage.Failpoints.class)).isTrue();
            assertThat(PublicApiSurfaceTest.isInternal(WriteLimits.class)).isFalse();
        } finally {
            graph.close();
        }
    }
}

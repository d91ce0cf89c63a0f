package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.storage.error.MergeConflicts;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import dev.omnigraph.engine.write.WriteLimits;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Conflicts that only the combination of both sides creates: the merged image is validated against the target. */
class MergeValidationTest extends MergeFixture {
    @BeforeEach
    void seed() {
        load("main", LoadMode.APPEND, "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}",
                "{\"type\":\"Company\",\"data\":{\"name\":\"Beta\"}}", person("Ada", 30), person("Bob", 40));
        branch("f");
    }

    @Test
    void anEdgeToANodeTheOtherSideDeletedIsAnOrphan() {
        load("f", LoadMode.MERGE, job("w1", "Ada", "Acme", "2020-01-01"));
        run("main", "dropCompany", "Acme");
        assertOnly(MergeConflicts.Kind.ORPHAN_EDGE, "WorksAt", "w1");
    }

    @Test
    void aNodeDeletedUnderAnEdgeTheOtherSideAddedIsAnOrphanToo() {
        run("f", "dropCompany", "Acme");
        load("main", LoadMode.MERGE, job("w1", "Ada", "Acme", "2020-01-01"));
        assertOnly(MergeConflicts.Kind.ORPHAN_EDGE, "WorksAt", "w1");
    }

    @Test
    void aUniqueClashCreatedOnlyByCombiningBothSides() {
        load("f", LoadMode.APPEND, "{\"type\":\"Person\",\"data\":{\"name\":\"Cy\",\"email\":\"x@example.com\"}}");
        load("main", LoadMode.APPEND, "{\"type\":\"Person\",\"data\":{\"name\":\"Di\",\"email\":\"x@example.com\"}}");
        assertOnly(MergeConflicts.Kind.UNIQUE_VIOLATION, "Person", "Cy");
    }

    @Test
    void aCardinalityBoundBrokenOnlyByTheUnion() {
        load("f", LoadMode.MERGE, job("w1", "Ada", "Acme", "2020-01-01"));
        load("main", LoadMode.MERGE, job("w2", "Ada", "Beta", "2020-01-01"));
        assertOnly(MergeConflicts.Kind.CARDINALITY_VIOLATION, "WorksAt", "Ada");
    }

    @Test
    void aDeltaAboveTheChunkBoundIsRefusedBeforeAnyEffect() {
        load("f", LoadMode.APPEND, person("Cy", 1), person("Di", 2), person("Ed", 3));
        // Three entities in chunks of two need two chunks; one is allowed.
        Omnigraph small = graph.withLimits(new WriteLimits(2, WriteLimits.DEFAULT.maxArrowBytesPerTable(), 1));
        Map<String, Long> before = GraphTestSupport.versions(graph);
        assertThatThrownBy(() -> small.mergeBranch("f", "main", false, Optional.empty()).block())
                .isInstanceOf(ResourceLimitExceeded.class);
        assertThat(GraphTestSupport.versions(graph)).isEqualTo(before);
        assertThat(graph.pendingSidecars().collectList().block()).isEmpty();
    }

    void assertOnly(MergeConflicts.Kind kind, String type, String id) {
        Map<String, Long> before = GraphTestSupport.versions(graph);
        assertThatThrownBy(() -> merge("f", "main")).isInstanceOfSatisfying(MergeConflicts.class, thrown -> {
            assertThat(thrown.conflicts()).hasSize(1);
            MergeConflicts.Conflict only = thrown.conflicts().get(0);
            assertThat(only.kind()).isEqualTo(kind);
            assertThat(only.typeName()).isEqualTo(type);
            assertThat(only.entityId()).contains(id);
        });
        assertThat(GraphTestSupport.versions(graph)).isEqualTo(before);
    }
}

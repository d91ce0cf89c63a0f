package dev.omnigraph.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.manifest.ManifestState;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The captured authority a confirmed write may be rolled forward under (issue 30, items 2 and 4): the branch
 * identity and head, and also the stored schema identity and the writer epoch its token was captured at. Any one
 * of them moved → never forward (the write is rolled back instead). Sidecars and stamps from before those were
 * recorded have nothing to compare and keep the older rule.
 */
class AuthorityTest {
    static final BranchIdentity MAIN = new BranchIdentity("main", Optional.empty(), 0, 0);

    static Sidecar confirmed(String schema, Long epoch) {
        Sidecar base = SidecarStoreTest.sample("01OP");
        Sidecar.ProtocolV3 p = base.protocolV3();
        Sidecar.Authority authority = new Sidecar.Authority(p.authority().branchIdentifier(), "01HEAD", schema,
                p.authority().schemaIdentityDomain(), epoch);
        return base.withPayload(base.tables(), new Sidecar.ProtocolV3(authority, p.lineage(), p.rollbackGraphCommitId(),
                Sidecar.EffectPhase.EffectsConfirmed, p.effects(), p.intendedDelta(), null));
    }

    static ManifestState live(Optional<String> schema, long epoch) {
        TableSnapshot manifest = new TableSnapshot(TableRef.main("/g/__manifest"), 7, null, 10, 1);
        return new ManifestState("main", manifest, new TreeMap<>(), Map.of("main", "01HEAD"), epoch, Map.of(),
                ManifestState.Tail.NONE, schema);
    }

    static boolean forward(Sidecar sidecar, ManifestState state) {
        Map<TablePin, Classifier.Classified> byPin = new LinkedHashMap<>();
        sidecar.tables().forEach(pin -> byPin.put(pin, new Classifier.Classified(TableClass.OWN_AT_HEAD, 4)));
        return Classifier.canRollForward(sidecar, byPin, state, MAIN);
    }

    @Test
    void theSameAuthorityRollsForward() {
        assertThat(forward(confirmed("irhash", 2L), live(Optional.of("irhash"), 2))).isTrue();
    }

    @Test
    void anotherStoredSchemaIsNeverRolledForward() {
        assertThat(forward(confirmed("irhash", 2L), live(Optional.of("applied-since"), 2))).isFalse();
    }

    @Test
    void aHigherWriterEpochIsNeverRolledForward() {
        assertThat(forward(confirmed("irhash", 2L), live(Optional.of("irhash"), 3))).isFalse();
    }

    @Test
    void recordsFromBeforeKeepTheOlderRule() {
        for (ManifestState state : List.of(live(Optional.empty(), 5), live(Optional.of("irhash"), 5))) {
            assertThat(forward(confirmed(null, null), state)).isTrue();
        }
        assertThat(forward(confirmed("irhash", null), live(Optional.empty(), 9))).isTrue();
    }
}

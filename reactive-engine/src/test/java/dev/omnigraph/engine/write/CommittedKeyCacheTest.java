package dev.omnigraph.engine.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.CommittedVersion;
import dev.omnigraph.storage.TransactionIdentity;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The carried ids of a table: each publish adds its ids to the set the cache holds (tagged with the version it
 * made) instead of copying the set, and each version still answers exactly its own ids.
 */
class CommittedKeyCacheTest {
    static TableEntry pin(long version) {
        return new TableEntry("node:Person", 7, 1, "nodes/7-1", version, Optional.empty(), 0, false);
    }

    @Test
    void eachVersionAnswersExactlyItsOwnIds() {
        CommittedKeyCache cache = new CommittedKeyCache();
        cache.learn(pin(3), Set.of("a", "b"));
        Set<String> atThree = cache.known(pin(3)).orElseThrow();
        cache.carried(pin(3), landed(4, 4), List.of("c", "d"), 1);
        cache.carried(pin(4), landed(5, 5), List.of("e"), 1);

        assertThat(cache.known(pin(3))).isEmpty(); // one version per table
        Set<String> atFive = cache.known(pin(5)).orElseThrow();
        assertThat(atFive).containsExactlyInAnyOrder("a", "b", "c", "d", "e").hasSize(5);
        assertThat(atFive.contains("e")).isTrue();
        // A reader still holding version 3 (a plan pinned there) sees neither later load's ids.
        assertThat(atThree.contains("c")).isFalse();
        assertThat(atThree.contains("e")).isFalse();
        assertThat(atThree).containsExactlyInAnyOrder("a", "b").hasSize(2);
    }

    @Test
    void aMergeNamingIdsTheTableHoldsKeepsThemVisibleAtEarlierVersions() {
        CommittedKeyCache cache = new CommittedKeyCache();
        cache.learn(pin(1), Set.of("a"));
        cache.carried(pin(1), landed(2, 2), List.of("b"), 1);
        Set<String> atTwo = cache.known(pin(2)).orElseThrow();
        cache.carried(pin(2), landed(3, 3), List.of("a", "b", "c"), 1); // a merge: a and b exist already

        assertThat(atTwo).containsExactlyInAnyOrder("a", "b");
        assertThat(cache.known(pin(3)).orElseThrow()).containsExactlyInAnyOrder("a", "b", "c").hasSize(3);
    }

    @Test
    void aPublishFromAVersionOtherThanTheKnownOneIsNotCarried() {
        CommittedKeyCache cache = new CommittedKeyCache();
        cache.learn(pin(1), Set.of("a"));
        cache.carried(pin(2), landed(3, 2), List.of("b"), 1); // version 2 was made elsewhere: 1 → 2 is unknown

        assertThat(cache.known(pin(3))).isEmpty();
        assertThat(cache.known(pin(1)).orElseThrow()).containsExactly("a");
    }

    @Test
    void carriedIdsCountTowardsTheBound() {
        CommittedKeyCache cache = new CommittedKeyCache();
        int half = (int) (CommittedKeyCache.MAX_KEYS / 2);
        cache.learn(pin(1), IntStream.range(0, half).mapToObj(i -> "p" + i).collect(Collectors.toSet()));
        cache.carried(pin(1), landed(2, 2L * half), IntStream.range(half, 2 * half).mapToObj(i -> "p" + i).toList(), 1);
        assertThat(cache.known(pin(2))).isPresent(); // exactly MAX_KEYS
        cache.carried(pin(2), landed(3, 2L * half + 1), List.of("one more"), 1);
        assertThat(cache.known(pin(3))).isEmpty(); // over the bound: dropped, looked up instead
    }

    static CommittedVersion landed(long version, long rowCount) {
        return new CommittedVersion(version, new TransactionIdentity(version - 1, "t" + version), rowCount);
    }

    static ChangeSet inserted(TableEntry pin, String... ids) {
        return ChangeSet.counted(List.of(new TableChange(pin, TableChange.Kind.INSERT,
                java.util.Arrays.stream(ids).map(id -> Map.<String, Object>of("id", id)).toList(), List.of())),
                Map.of(), true);
    }

    @Test
    void aPublishThatLandedOneVersionOnWithTheExpectedRowCountIsCarried() {
        CommittedKeyCache cache = new CommittedKeyCache();
        cache.learn(pin(3), Set.of("a", "b"));
        cache.carry("main", inserted(pin(3), "c", "a"), Map.of("node:Person", landed(4, 3)), java.util.Set.of()); // a: upserted again

        assertThat(cache.known(pin(4)).orElseThrow()).containsExactlyInAnyOrder("a", "b", "c").hasSize(3);
    }

    @Test
    void aRowCountOtherThanTheSetPlusItsNewIdsDropsTheSet() {
        CommittedKeyCache cache = new CommittedKeyCache();
        cache.learn(pin(3), Set.of("a", "b"));
        // Four rows where the set says three: the change was not all this publish made (or the set is not the table's).
        cache.carry("main", inserted(pin(3), "c"), Map.of("node:Person", landed(4, 4)), java.util.Set.of());

        assertThat(cache.known(pin(4))).isEmpty();
        assertThat(cache.known(pin(3))).isEmpty();
    }

    @Test
    void aCommitThatLandedFurtherOnDropsTheSet() {
        CommittedKeyCache cache = new CommittedKeyCache();
        cache.learn(pin(3), Set.of("a"));
        cache.carry("main", inserted(pin(3), "b"), Map.of("node:Person", landed(5, 2)), java.util.Set.of());

        assertThat(cache.known(pin(4))).isEmpty();
        assertThat(cache.known(pin(5))).isEmpty();
    }

    @Test
    void anotherBranchOrAnotherKindOfChangeIsNotCarried() {
        CommittedKeyCache cache = new CommittedKeyCache();
        cache.learn(pin(3), Set.of("a"));
        cache.carry("side", inserted(pin(3), "b"), Map.of("node:Person", landed(4, 2)), java.util.Set.of());
        assertThat(cache.known(pin(4))).isEmpty();

        ChangeSet deleteAndInsert = ChangeSet.counted(List.of(
                new TableChange(pin(3), TableChange.Kind.DELETE, List.of(), List.of("a")),
                new TableChange(pin(3), TableChange.Kind.INSERT, List.of(Map.of("id", "b")), List.of())), Map.of(), false);
        cache.carry("main", deleteAndInsert, Map.of("node:Person", landed(4, 1)), java.util.Set.of());
        assertThat(cache.known(pin(4))).isEmpty();

        ChangeSet overwrite = ChangeSet.counted(List.of(new TableChange(pin(3), TableChange.Kind.OVERWRITE,
                List.of(Map.of("id", "b")), List.of())), Map.of(), false);
        cache.carry("main", overwrite, Map.of("node:Person", landed(4, 1)), java.util.Set.of());
        assertThat(cache.known(pin(4))).isEmpty();
        assertThat(cache.known(pin(3)).orElseThrow()).containsExactly("a"); // still exact for its own version
    }

    @Test
    void aWriteFollowedByItsIndexBuildCarriesTheSetTwoVersionsOn() {
        CommittedKeyCache cache = new CommittedKeyCache();
        cache.learn(pin(3), java.util.Set.of("a"));
        cache.carry("main", inserted(pin(3), "b"), Map.of("node:Person", landed(5, 2)), java.util.Set.of("node:Person"));
        assertThat(cache.known(pin(5))).hasValueSatisfying(ids -> assertThat(ids).contains("a", "b"));
        assertThat(cache.known(pin(4))).as("the data commit's own version is not a pin anyone reads").isEmpty();
    }
}

package dev.omnigraph.engine.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.manifest.TableDelta;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.List;
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

    static TableDelta step(long from) {
        return new TableDelta("node:Person", from, from + 1);
    }

    @Test
    void eachVersionAnswersExactlyItsOwnIds() {
        CommittedKeyCache cache = new CommittedKeyCache();
        cache.learn(pin(3), Set.of("a", "b"));
        Set<String> atThree = cache.known(pin(3)).orElseThrow();
        cache.published(pin(3), step(3), List.of("c", "d"));
        cache.published(pin(4), step(4), List.of("e"));

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
        cache.published(pin(1), step(1), List.of("b"));
        Set<String> atTwo = cache.known(pin(2)).orElseThrow();
        cache.published(pin(2), step(2), List.of("a", "b", "c")); // a merge: a and b exist already

        assertThat(atTwo).containsExactlyInAnyOrder("a", "b");
        assertThat(cache.known(pin(3)).orElseThrow()).containsExactlyInAnyOrder("a", "b", "c").hasSize(3);
    }

    @Test
    void aPublishFromAVersionOtherThanTheKnownOneIsNotCarried() {
        CommittedKeyCache cache = new CommittedKeyCache();
        cache.learn(pin(1), Set.of("a"));
        cache.published(pin(2), step(2), List.of("b")); // version 2 was made elsewhere: 1 → 2 is unknown

        assertThat(cache.known(pin(3))).isEmpty();
        assertThat(cache.known(pin(1)).orElseThrow()).containsExactly("a");
    }

    @Test
    void carriedIdsCountTowardsTheBound() {
        CommittedKeyCache cache = new CommittedKeyCache();
        int half = (int) (CommittedKeyCache.MAX_KEYS / 2);
        cache.learn(pin(1), IntStream.range(0, half).mapToObj(i -> "p" + i).collect(Collectors.toSet()));
        cache.published(pin(1), step(1), IntStream.range(half, 2 * half).mapToObj(i -> "p" + i).toList());
        assertThat(cache.known(pin(2))).isPresent(); // exactly MAX_KEYS
        cache.published(pin(2), step(2), List.of("one more"));
        assertThat(cache.known(pin(3))).isEmpty(); // over the bound: dropped, looked up instead
    }
}

package dev.omnigraph.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.recovery.Sidecar.Chain;
import dev.omnigraph.recovery.Sidecar.Txn;
import dev.omnigraph.storage.TransactionIdentity;
import dev.omnigraph.storage.TransactionMark;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The ownership proof of a chained effect: only a contiguous prefix of the declared chain (each chunk at its
 * version, read at the one before, with its mark), optionally followed by this sidecar's recorded restore, is
 * owned; a gap, a foreign or unreadable version, or a chunk out of place is foreign.
 */
class ChainPinsTest {
    private static final long E = 7;
    private static final Chain CHAIN = new Chain("01CHAIN", 3);
    private static final Txn RESTORE = new Txn(E + 2, "restore-uuid");

    private static Optional<TransactionMark> chunk(long version, long readVersion, String mark) {
        return Optional.of(new TransactionMark(version, new TransactionIdentity(readVersion, "u" + version), Optional.ofNullable(mark)));
    }

    /** Chunks 1..n of CHAIN exactly where they belong. */
    private static List<Optional<TransactionMark>> own(int n) {
        List<Optional<TransactionMark>> out = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            out.add(chunk(E + i, E + i - 1, CHAIN.mark(i)));
        }
        return out;
    }

    private static TableClass kind(List<Optional<TransactionMark>> marks, Optional<Txn> restore) {
        return ChainPins.kind(marks, CHAIN, E, restore);
    }

    @Test
    void theWholeChainIsOwnAtHeadAndAPrefixIsOwnedButNotComplete() {
        assertThat(kind(own(3), Optional.empty())).isEqualTo(TableClass.OWN_AT_HEAD);
        assertThat(kind(own(1), Optional.empty())).isEqualTo(TableClass.OWN_PREFIX);
        assertThat(kind(own(2), Optional.empty())).isEqualTo(TableClass.OWN_PREFIX);
    }

    @Test
    void aRecordedRestoreAfterAPrefixIsCompensatedAnyOtherVersionAfterItIsForeign() {
        List<Optional<TransactionMark>> restored = new ArrayList<>(own(2));
        restored.add(Optional.of(new TransactionMark(E + 3, new TransactionIdentity(E + 2, "restore-uuid"), Optional.empty())));
        assertThat(kind(restored, Optional.of(RESTORE))).isEqualTo(TableClass.OWN_COMPENSATED);
        assertThat(kind(restored, Optional.empty())).isEqualTo(TableClass.FOREIGN);

        List<Optional<TransactionMark>> winner = new ArrayList<>(own(2));
        winner.add(chunk(E + 3, E + 2, null)); // a foreign write after the prefix: never restored through
        assertThat(kind(winner, Optional.of(RESTORE))).isEqualTo(TableClass.FOREIGN);
    }

    @Test
    void gapsForeignFirstVersionsMisplacedChunksAndUnreadableVersionsAreForeign() {
        assertThat(kind(List.of(chunk(E + 1, E, null)), Optional.empty())).isEqualTo(TableClass.FOREIGN);
        assertThat(kind(List.of(chunk(E + 1, E, CHAIN.mark(2))), Optional.empty())).isEqualTo(TableClass.FOREIGN);
        assertThat(kind(List.of(chunk(E + 1, E - 1, CHAIN.mark(1))), Optional.empty())).as("rebased, not exact")
                .isEqualTo(TableClass.FOREIGN);
        assertThat(kind(List.of(chunk(E + 1, E, "01OTHER:1")), Optional.empty())).as("another chain")
                .isEqualTo(TableClass.FOREIGN);
        List<Optional<TransactionMark>> indexBuild = new ArrayList<>(own(1));
        indexBuild.add(Optional.empty());
        assertThat(kind(indexBuild, Optional.empty())).isEqualTo(TableClass.FOREIGN);
        List<Optional<TransactionMark>> gap = new ArrayList<>(own(1));
        gap.add(chunk(E + 2, E + 1, CHAIN.mark(3)));
        assertThat(kind(gap, Optional.empty())).isEqualTo(TableClass.FOREIGN);
    }
}

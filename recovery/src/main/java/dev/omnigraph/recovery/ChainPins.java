package dev.omnigraph.recovery;

import dev.omnigraph.recovery.Classifier.Classified;
import dev.omnigraph.recovery.Sidecar.Chain;
import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.recovery.Sidecar.Txn;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.TransactionMark;
import dev.omnigraph.storage.error.NotFound;
import java.util.List;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * Pins whose effect is a chain of exact transactions ({@link Chain}, a chunked merge). Ownership is proven, never
 * inferred from how far HEAD moved: the versions past the expected one must be a contiguous prefix of the declared
 * chain — version {@code E + i} read at {@code E + i - 1} carrying chunk {@code i}'s mark — optionally followed by
 * this sidecar's own recorded restore. Anything else (a gap, a foreign or unreadable version, a longer history) is
 * foreign, and recovery refuses rather than restore through it. On a first-touch fork the same proof runs on the
 * fork ref; an absent ref is no movement.
 */
final class ChainPins {
    private ChainPins() {
    }

    static Mono<Classified> classify(TableStorage tables, Sidecar sidecar, TablePin pin, TableRef ref, Chain chain,
                                     long published, boolean fork) {
        long expected = pin.expectedVersion();
        if (published != expected) {
            return Mono.just(new Classified(TableClass.FOREIGN, published));
        }
        Mono<Optional<Long>> head = tables.head(ref).map(Optional::of);
        if (fork) {
            head = head.onErrorResume(NotFound.class, absent -> Mono.just(Optional.empty()));
        }
        return head.flatMap(found -> {
            if (found.isEmpty() || found.get() == expected) {
                return Mono.just(new Classified(TableClass.NO_MOVEMENT, expected));
            }
            long at = found.get();
            if (at < expected) {
                return Mono.just(new Classified(TableClass.INVARIANT_VIOLATION, at));
            }
            if (at > expected + chain.length() + 1) {
                return Mono.just(new Classified(TableClass.FOREIGN, at));
            }
            Optional<Txn> restore = fork ? Optional.empty() : Classifier.restoreOf(sidecar, pin.tableKey());
            return tables.transactionMarks(ref, expected, at, Chain.PROPERTY)
                    .map(marks -> new Classified(kind(marks, chain, expected, restore), at));
        });
    }

    /** The class of the versions {@code (expected, HEAD]} read back as {@code marks}. */
    static TableClass kind(List<Optional<TransactionMark>> marks, Chain chain, long expected, Optional<Txn> restore) {
        int own = ownPrefix(marks, chain, expected);
        if (own == marks.size()) {
            return own == chain.length() ? TableClass.OWN_AT_HEAD : TableClass.OWN_PREFIX;
        }
        boolean restoredAfter = own >= 1 && own == marks.size() - 1 && restore.isPresent()
                && marks.get(own).map(last -> restore.get().identifies(last.identity())).orElse(false);
        return restoredAfter ? TableClass.OWN_COMPENSATED : TableClass.FOREIGN;
    }

    /** How many versions from {@code expected + 1} on are, in order, the chain's own chunks. */
    private static int ownPrefix(List<Optional<TransactionMark>> marks, Chain chain, long expected) {
        int own = 0;
        while (own < marks.size() && own < chain.length()) {
            int chunk = own + 1;
            boolean ours = marks.get(own).filter(mark -> mark.version() == expected + chunk
                    && mark.identity().readVersion() == expected + chunk - 1
                    && mark.mark().equals(Optional.of(chain.mark(chunk)))).isPresent();
            if (!ours) {
                break;
            }
            own++;
        }
        return own;
    }
}

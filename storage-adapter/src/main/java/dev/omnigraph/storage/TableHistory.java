package dev.omnigraph.storage;

import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.compaction.CompactionOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reading a table's version history without tripping Lance's JNI aborts, and the one definition of what
 * compaction writes. Lance 0.39 aborts the JVM when Java reads the transaction of an index build or of a branch's
 * first (Clone) version, so those are recognised first — an index build by an index its predecessor lacks (or a
 * renewed uuid over the same fragments), a fork by the branch's recorded parent version — and never read.
 */
public final class TableHistory {
    /** The compaction every maintenance path runs: default fragment size, deletions materialised past 10%. */
    static final CompactionOptions COMPACTION = CompactionOptions.builder().withMaterializeDeletionsThreshold(0.1f).build();

    /** The operations a compaction commits: the reserve versions its tasks take, then the rewrite. */
    private static final Set<String> MAINTENANCE = Set.of("ReserveFragments", "Rewrite");

    private TableHistory() {
    }

    /** True when {@code operation} only re-lays out existing rows (the table's content is unchanged). */
    public static boolean isMaintenance(String operation) {
        return MAINTENANCE.contains(operation);
    }

    /**
     * The operation of every version in {@code (after, upTo]} of {@code ref}; {@code latest} is opened at
     * {@code upTo}. An index build is recognised without reading it: it adds an index name the previous
     * version lacked, or (a rebuild under the same name, as optimize does) an index uuid changed while no fragment did —
     * a Rewrite also renews the uuids of the indexes it remaps, but it changes fragments and its transaction is
     * readable. Uuids come from the manifest, so only on local roots.
     */
    static List<String> operations(TableRef ref, Dataset latest, long after, long upTo, OptionalLong forkVersion) {
        return walk(ref, latest::checkoutVersion, after, upTo, forkVersion,
                (version, tx) -> tx.map(t -> t.operation().name()).orElse("Unknown"), version -> "Clone",
                version -> "CreateIndex");
    }

    /**
     * The transaction of every version in {@code (after, upTo]} with the value of property {@code key}; an index
     * build or fork version (never read) is an empty entry. {@code open} opens one version of the ref (a branch's
     * versions through its own tree).
     */
    static List<java.util.Optional<TransactionMark>> marks(TableRef ref, java.util.function.LongFunction<Dataset> open,
                                                         long after, long upTo, OptionalLong forkVersion, String key) {
        return walk(ref, open, after, upTo, forkVersion, (version, tx) -> tx.map(t -> new TransactionMark(version,
                        TransactionIdentity.of(t),
                        t.transactionProperties().map(props -> props.get(key)))),
                version -> java.util.Optional.<TransactionMark>empty(), version -> java.util.Optional.<TransactionMark>empty());
    }

    /** The identity of the transaction that made {@code version}; empty for an index build or a fork (never read). */
    static java.util.Optional<TransactionIdentity> identityAt(TableRef ref, java.util.function.LongFunction<Dataset> open,
                                                             long version, OptionalLong forkVersion) {
        return walk(ref, open, version - 1, version, forkVersion,
                (at, tx) -> tx.map(TransactionIdentity::of),
                at -> java.util.Optional.<TransactionIdentity>empty(), at -> java.util.Optional.<TransactionIdentity>empty())
                .get(0);
    }

    /** The one walk over versions that never reads a transaction Lance would abort on. */
    private static <T> List<T> walk(TableRef ref, java.util.function.LongFunction<Dataset> open, long after, long upTo,
                                    OptionalLong forkVersion,
                                    java.util.function.BiFunction<Long, java.util.Optional<org.lance.Transaction>, T> read,
                                    java.util.function.LongFunction<T> clone, java.util.function.LongFunction<T> indexBuild) {
        List<T> out = new ArrayList<>();
        State previous = after < 1 ? State.NONE : state(ref, open, after);
        for (long version = Math.max(1, after + 1); version <= upTo; version++) {
            State current = state(ref, open, version);
            if (forkVersion.isPresent() && version == forkVersion.getAsLong()) {
                out.add(clone.apply(version));
            } else if (current.buildsAnIndexOver(previous)) {
                out.add(indexBuild.apply(version));
            } else {
                try (Dataset at = open.apply(version)) {
                    out.add(read.apply(version, at.readTransaction()));
                }
            }
            previous = current;
        }
        return List.copyOf(out);
    }

    /** What tells an index build apart: index names, their uuids (empty when unknown) and the fragments. */
    private record State(List<String> names, Map<String, String> uuids, List<FragmentMetadata> fragments) {
        static final State NONE = new State(List.of(), Map.of(), List.of());

        /**
         * An index build adds an index, or renews one's uuid over the same fragments. A version that only drops
         * indexes (a restore rolling a build back) is a readable Restore.
         */
        boolean buildsAnIndexOver(State previous) {
            boolean adds = !previous.names().containsAll(names);
            boolean renews = names.equals(previous.names()) && !uuids.equals(previous.uuids())
                    && fragments.equals(previous.fragments());
            return adds || renews;
        }
    }

    private static State state(TableRef ref, java.util.function.LongFunction<Dataset> open, long version) {
        Map<String, String> uuids = new TreeMap<>();
        LanceIndexCoverage.indexes(ref, version).ifPresent(found -> found.forEach((name, meta) -> uuids.put(name, meta.uuid())));
        try (Dataset at = open.apply(version)) {
            return new State(at.listIndexes().stream().sorted().toList(), uuids,
                    at.getFragments().stream().map(org.lance.Fragment::metadata).toList());
        }
    }
}

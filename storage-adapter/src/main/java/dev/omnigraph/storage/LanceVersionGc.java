package dev.omnigraph.storage;

import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.fragment.DataFile;
import org.lance.fragment.DeletionFile;
import org.lance.fragment.DeletionFileType;
import dev.omnigraph.storage.DatasetFiles.RefFiles;
import dev.omnigraph.storage.ObjectStore.StoredObject;
import dev.omnigraph.storage.VersionGcPlan.Victim;
import dev.omnigraph.storage.error.StorageFault;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.arrow.memory.BufferAllocator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Version GC for one Lance dataset and all its branch trees, on whatever the graph root's {@link ObjectStore} is (a
 * local directory or an S3 prefix): one listing of the dataset's keys, its manifests read through the store, its
 * fragments read through Lance, deletes through the store. Lance's own {@code cleanupWithPolicy} is not used: it
 * removes every version of a ref before one cutoff (our retention keeps arbitrary, non-contiguous versions), a tag
 * used as a pin stops it deleting any data file, and its unreferenced-file window is fixed (7 days, or nothing with
 * {@code deleteUnverified}) where ours is the caller's grace period.
 *
 * <p>A version is kept when the caller's {@link VersionRetention} for its ref keeps it, when it is its ref's latest,
 * or when a Lance branch was forked from it; refs the caller names no rule for keep everything. A file is deleted
 * only on positive evidence: a version being deleted references it and no kept version of any ref does (branches
 * share their parent's files, so references are pooled across refs by file name, which Lance makes unique), or,
 * for data and deletion files no version references at all (staged by a write that never committed), it was last
 * modified before the orphan cutoff. Data and deletion files are read from Lance's fragment metadata; index
 * directories and transaction files by looking for their uuid or name in the raw manifest bytes, so a format this
 * code misreads keeps files instead of deleting them.
 */
final class LanceVersionGc {
    private static final Pattern TXN_NAME = Pattern.compile("\\d+-[0-9a-fA-F-]{32,36}\\.txn");
    /** Manifest reads and deletes in flight at once (each is a round trip on an object store). */
    private static final int IN_FLIGHT = 4;

    private final LanceDatasets datasets;

    LanceVersionGc(LanceDatasets datasets) {
        this.datasets = datasets;
    }

    /** One ref's files and the split of its versions into kept and doomed manifests. */
    private record RefVersions(Optional<String> ref, RefFiles files, TreeMap<Long, StoredObject> kept,
                               TreeMap<Long, StoredObject> doomed) {
    }

    /** A version whose references are read, and which side (kept or doomed) they count for. */
    private record Reading(Optional<String> ref, long version, String manifestKey, References into) {
    }

    /** File names referenced by a set of versions. */
    private static final class References {
        final Set<String> data = new HashSet<>();
        final Set<String> deletions = new HashSet<>();
        final Set<String> txns = new HashSet<>();
        final Set<String> indexDirs = new HashSet<>();
    }

    /** Plans the GC of the dataset at {@code location} (a key under {@code root}); deletes nothing. */
    Mono<VersionGcPlan> plan(ObjectStore root, String location, Map<Optional<String>, VersionRetention> retention,
                             Instant orphanCutoff) {
        String path = root.rootUri() + "/" + location;
        TableRef main = TableRef.main(path);
        Mono<List<LanceBranch>> branches = datasets.withAllocator("planVersionGc", main,
                allocator -> LanceDatasets.branchesOf(path, allocator));
        return branches.zipWith(root.listObjects(location + "/")).flatMap(listed -> {
            DatasetFiles files = DatasetFiles.of(location, listed.getT1(), listed.getT2());
            List<RefVersions> refs = split(files, retention, forkPoints(listed.getT1()));
            Set<String> indexUuids = new HashSet<>();
            files.refs().values().forEach(ref -> indexUuids.addAll(ref.indexes().keySet()));
            References kept = new References();
            References doomed = new References();
            List<Reading> readings = new ArrayList<>();
            for (RefVersions ref : refs) {
                ref.kept().forEach((version, manifest) -> readings.add(new Reading(ref.ref(), version, manifest.key(), kept)));
                ref.doomed().forEach((version, manifest) -> readings.add(new Reading(ref.ref(), version, manifest.key(), doomed)));
            }
            Mono<Void> manifests = Flux.fromIterable(readings)
                    .flatMapSequential(reading -> root.get(reading.manifestKey()).map(bytes -> Map.entry(reading,
                            bytes.orElseThrow(() -> new StorageFault("version cleanup: manifest " + reading.manifestKey()
                                    + " vanished while cleanup planned; run it again", null)))), IN_FLIGHT)
                    .doOnNext(read -> mentions(read.getValue(), indexUuids, read.getKey().into()))
                    .then();
            Mono<Void> fragments = datasets.withAllocator("planVersionGc", main, allocator -> {
                readings.forEach(reading -> fragments(allocator, path, reading, reading.into()));
                return true;
            }).then();
            return manifests.then(fragments).then(Mono.fromCallable(() -> victims(path, refs, kept, doomed, orphanCutoff)));
        });
    }

    /** Deletes one phase of {@code plan} (idempotent: what is already gone is skipped); emits the bytes freed. */
    static Mono<Long> apply(ObjectStore root, VersionGcPlan plan, VersionGcPlan.Phase phase) {
        List<Victim> victims = phase == VersionGcPlan.Phase.FILES ? plan.files() : plan.manifests();
        return Flux.fromIterable(victims)
                .flatMap(victim -> root.deleteLazily(victim.location()).map(existed -> existed ? victim.bytes() : 0L),
                        IN_FLIGHT)
                .reduce(0L, Long::sum);
    }

    private static Map<Optional<String>, Set<Long>> forkPoints(List<LanceBranch> branches) {
        Map<Optional<String>, Set<Long>> forkPoints = new HashMap<>();
        for (LanceBranch branch : branches) {
            forkPoints.computeIfAbsent(branch.parentBranch(), unused -> new HashSet<>()).add(branch.parentVersion());
            forkPoints.computeIfAbsent(Optional.of(branch.name()), unused -> new HashSet<>()).add(branch.parentVersion());
        }
        return forkPoints;
    }

    private static List<RefVersions> split(DatasetFiles files, Map<Optional<String>, VersionRetention> retention,
                                           Map<Optional<String>, Set<Long>> forkPoints) {
        List<RefVersions> out = new ArrayList<>();
        files.refs().forEach((ref, refFiles) -> {
            TreeMap<Long, StoredObject> all = refFiles.manifests();
            TreeMap<Long, StoredObject> kept = new TreeMap<>();
            TreeMap<Long, StoredObject> doomed = new TreeMap<>();
            VersionRetention rule = retention.get(ref);
            Set<Long> forks = forkPoints.getOrDefault(ref, Set.of());
            all.forEach((version, manifest) -> {
                boolean keep = rule == null || version.equals(all.lastKey()) || forks.contains(version) || rule.keeps(version);
                (keep ? kept : doomed).put(version, manifest);
            });
            out.add(new RefVersions(ref, refFiles, kept, doomed));
        });
        return out;
    }

    private static VersionGcPlan victims(String path, List<RefVersions> refs, References kept, References doomed,
                                         Instant orphanCutoff) {
        boolean deletionNamesVerified = verifyDeletionNames(refs, kept);
        List<Victim> files = new ArrayList<>();
        List<Victim> manifests = new ArrayList<>();
        for (RefVersions ref : refs) {
            for (StoredObject file : ref.files().data()) {
                String name = DatasetFiles.fileName(file.key());
                if (!kept.data.contains(name) && (doomed.data.contains(name) || file.modified().isBefore(orphanCutoff))) {
                    files.add(Victim.file(file.key(), file.bytes()));
                }
            }
            for (StoredObject file : ref.files().deletions()) {
                String name = DatasetFiles.fileName(file.key());
                if (deletionNamesVerified && !kept.deletions.contains(name)
                        && (doomed.deletions.contains(name) || file.modified().isBefore(orphanCutoff))) {
                    files.add(Victim.file(file.key(), file.bytes()));
                }
            }
            ref.files().indexes().forEach((uuid, indexFiles) -> {
                if (doomed.indexDirs.contains(uuid) && !kept.indexDirs.contains(uuid)) {
                    indexFiles.forEach(file -> files.add(Victim.file(file.key(), file.bytes())));
                }
            });
            for (StoredObject file : ref.files().transactions()) {
                String name = DatasetFiles.fileName(file.key());
                if (doomed.txns.contains(name) && !kept.txns.contains(name)) {
                    files.add(Victim.file(file.key(), file.bytes()));
                }
            }
            ref.doomed().forEach((version, manifest) ->
                    manifests.add(new Victim(manifest.key(), manifest.bytes(), ref.ref(), version)));
        }
        manifests.sort(Comparator.comparingLong(Victim::version));
        return new VersionGcPlan(path, files, manifests);
    }

    /** The data and deletion files of one version, as Lance's fragment metadata names them. */
    private static void fragments(BufferAllocator allocator, String path, Reading reading, References into) {
        try (Dataset dataset = LanceDatasets.open(allocator, new TableRef(path, reading.ref()),
                OptionalLong.of(reading.version()))) {
            for (Fragment fragment : dataset.getFragments()) {
                FragmentMetadata metadata = fragment.metadata();
                for (DataFile file : metadata.getFiles()) {
                    into.data.add(DatasetFiles.fileName(file.getPath()));
                }
                DeletionFile deletion = metadata.getDeletionFile();
                if (deletion != null) {
                    // Lance's ids are u64; Java hands them over as signed longs.
                    into.deletions.add(metadata.getId() + "-" + deletion.getReadVersion() + "-"
                            + Long.toUnsignedString(deletion.getId()) + "."
                            + (deletion.getFileType() == DeletionFileType.BITMAP ? "bin" : "arrow"));
                }
            }
        }
    }

    /** The transaction file names and index uuids one manifest's raw bytes mention. */
    private static void mentions(byte[] bytes, Set<String> indexUuids, References into) {
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        Matcher txn = TXN_NAME.matcher(text);
        while (txn.find()) {
            into.txns.add(txn.group());
        }
        for (String candidate : indexUuids) {
            if (mentionsUuid(text, candidate)) {
                into.indexDirs.add(candidate);
            }
        }
    }

    /** A uuid is stored as 16 raw bytes in Lance's protobuf; its text form is accepted too. */
    private static boolean mentionsUuid(String text, String candidate) {
        if (text.contains(candidate)) {
            return true;
        }
        UUID uuid = UUID.fromString(candidate); // DatasetFiles lists only names that parse
        byte[] raw = ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits()).array();
        return text.contains(new String(raw, StandardCharsets.ISO_8859_1));
    }

    /** Every deletion file a kept version names must be listed; if one is not, this code misreads the naming and deletes none. */
    private static boolean verifyDeletionNames(List<RefVersions> refs, References kept) {
        Set<String> listed = new HashSet<>();
        refs.forEach(ref -> ref.files().deletions().forEach(file -> listed.add(DatasetFiles.fileName(file.key()))));
        return listed.containsAll(kept.deletions);
    }
}

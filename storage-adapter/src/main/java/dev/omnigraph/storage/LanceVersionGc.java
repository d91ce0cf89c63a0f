package dev.omnigraph.storage;

import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.fragment.DataFile;
import org.lance.fragment.DeletionFile;
import org.lance.fragment.DeletionFileType;
import dev.omnigraph.storage.VersionGcPlan.Victim;
import dev.omnigraph.storage.error.BadRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;

/**
 * Version GC for one local Lance dataset and all its branch trees (Lance Java 0.39 has no cleanup API). A version
 * is kept when the caller's {@link VersionRetention} for its ref keeps it, when it is its ref's latest, or when a
 * Lance branch was forked from it; refs the caller names no rule for keep everything. A file is deleted only on
 * positive evidence: a version being deleted references it and no kept version of any ref does (branches share
 * their parent's files, so references are pooled across refs by file name, which Lance makes unique), or, for data
 * and deletion files no version references at all (staged by a write that never committed), it is older than the
 * orphan cutoff. Data and deletion files are read from Lance's fragment metadata; index directories and transaction
 * files by looking for their uuid or name in the raw manifest bytes, so a format this code misreads keeps files
 * instead of deleting them.
 */
final class LanceVersionGc {
    private static final Pattern MANIFEST = Pattern.compile("(\\d+)\\.manifest");
    private static final Pattern TXN_NAME = Pattern.compile("\\d+-[0-9a-fA-F-]{32,36}\\.txn");
    /** Lance's V2 manifest naming stores {@code u64::MAX - version} in 20 digits. */
    private static final int V2_DIGITS = 20;

    private LanceVersionGc() {
    }

    /** One ref's directory and the split of its versions into kept and doomed manifests. */
    private record RefVersions(Optional<String> ref, Path dir, TreeMap<Long, Path> kept, TreeMap<Long, Path> doomed) {
    }

    /** File names referenced by a set of versions. */
    private static final class References {
        final Set<String> data = new HashSet<>();
        final Set<String> deletions = new HashSet<>();
        final Set<String> txns = new HashSet<>();
        final Set<String> indexDirs = new HashSet<>();
    }

    static VersionGcPlan plan(BufferAllocator allocator, String path, Map<Optional<String>, VersionRetention> retention,
                              Instant orphanCutoff) {
        Path root = BranchTrees.localPath(path).orElseThrow(() -> new BadRequest(
                "version cleanup supports graph roots on the local filesystem only, not " + path));
        List<LanceBranch> branches = LanceDatasets.branchesOf(path, allocator);
        Map<Optional<String>, Set<Long>> forkPoints = new HashMap<>();
        for (LanceBranch branch : branches) {
            forkPoints.computeIfAbsent(branch.parentBranch(), unused -> new HashSet<>()).add(branch.parentVersion());
            forkPoints.computeIfAbsent(Optional.of(branch.name()), unused -> new HashSet<>()).add(branch.parentVersion());
        }
        List<RefVersions> refs = new ArrayList<>();
        refs.add(split(Optional.empty(), root, retention, forkPoints));
        for (LanceBranch branch : branches) {
            refs.add(split(Optional.of(branch.name()), root.resolve("tree").resolve(branch.name()), retention, forkPoints));
        }
        Set<String> indexCandidates = new HashSet<>();
        refs.forEach(ref -> indexCandidates.addAll(names(ref.dir().resolve("_indices"), Files::isDirectory)));
        References kept = new References();
        References doomed = new References();
        for (RefVersions ref : refs) {
            ref.kept().forEach((version, manifest) -> collect(allocator, path, ref.ref(), version, manifest, indexCandidates, kept));
            ref.doomed().forEach((version, manifest) -> collect(allocator, path, ref.ref(), version, manifest, indexCandidates, doomed));
        }
        boolean deletionNamesVerified = verifyDeletionNames(refs, kept);
        List<Victim> files = new ArrayList<>();
        List<Victim> manifests = new ArrayList<>();
        for (RefVersions ref : refs) {
            for (Path file : entries(ref.dir().resolve("data"), Files::isRegularFile)) {
                String name = file.getFileName().toString();
                if (name.endsWith(".lance") && !kept.data.contains(name)
                        && (doomed.data.contains(name) || olderThan(file, orphanCutoff))) {
                    files.add(Victim.file(file.toString(), size(file)));
                }
            }
            for (Path file : entries(ref.dir().resolve("_deletions"), Files::isRegularFile)) {
                String name = file.getFileName().toString();
                if (deletionNamesVerified && !kept.deletions.contains(name)
                        && (doomed.deletions.contains(name) || olderThan(file, orphanCutoff))) {
                    files.add(Victim.file(file.toString(), size(file)));
                }
            }
            for (Path dir : entries(ref.dir().resolve("_indices"), Files::isDirectory)) {
                String uuid = dir.getFileName().toString();
                if (doomed.indexDirs.contains(uuid) && !kept.indexDirs.contains(uuid)) {
                    files.add(Victim.file(dir.toString(), size(dir)));
                }
            }
            for (Path file : entries(ref.dir().resolve("_transactions"), Files::isRegularFile)) {
                String name = file.getFileName().toString();
                if (doomed.txns.contains(name) && !kept.txns.contains(name)) {
                    files.add(Victim.file(file.toString(), size(file)));
                }
            }
            ref.doomed().forEach((version, manifest) ->
                    manifests.add(new Victim(manifest.toString(), size(manifest), ref.ref(), version)));
        }
        manifests.sort(Comparator.comparingLong(Victim::version));
        return new VersionGcPlan(path, files, manifests);
    }

    /** Deletes one phase of {@code plan} (idempotent: what is already gone is skipped); returns the bytes freed. */
    static long apply(VersionGcPlan plan, VersionGcPlan.Phase phase) {
        long freed = 0;
        for (Victim victim : phase == VersionGcPlan.Phase.FILES ? plan.files() : plan.manifests()) {
            Path target = Path.of(victim.location());
            if (Files.exists(target)) {
                deleteTree(target);
                freed += victim.bytes();
            }
        }
        return freed;
    }

    private static RefVersions split(Optional<String> ref, Path dir, Map<Optional<String>, VersionRetention> retention,
                                     Map<Optional<String>, Set<Long>> forkPoints) {
        TreeMap<Long, Path> all = new TreeMap<>();
        for (Path manifest : entries(dir.resolve("_versions"), Files::isRegularFile)) {
            versionOf(manifest.getFileName().toString()).ifPresent(version -> all.put(version, manifest));
        }
        TreeMap<Long, Path> kept = new TreeMap<>();
        TreeMap<Long, Path> doomed = new TreeMap<>();
        VersionRetention rule = retention.get(ref);
        Set<Long> forks = forkPoints.getOrDefault(ref, Set.of());
        all.forEach((version, manifest) -> {
            boolean keep = rule == null || version.equals(all.lastKey()) || forks.contains(version) || rule.keeps(version);
            (keep ? kept : doomed).put(version, manifest);
        });
        return new RefVersions(ref, dir, kept, doomed);
    }

    static OptionalLong versionOf(String fileName) {
        Matcher matcher = MANIFEST.matcher(fileName);
        if (!matcher.matches()) {
            return OptionalLong.empty();
        }
        String digits = matcher.group(1);
        try {
            long value = Long.parseUnsignedLong(digits);
            return OptionalLong.of(digits.length() == V2_DIGITS ? ~value : value);
        } catch (NumberFormatException tooLong) {
            return OptionalLong.empty();
        }
    }

    private static void collect(BufferAllocator allocator, String path, Optional<String> ref, long version, Path manifest,
                                Set<String> indexCandidates, References into) {
        try (Dataset dataset = LanceDatasets.open(allocator, new TableRef(path, ref), OptionalLong.of(version))) {
            for (Fragment fragment : dataset.getFragments()) {
                FragmentMetadata metadata = fragment.metadata();
                for (DataFile file : metadata.getFiles()) {
                    into.data.add(Path.of(file.getPath()).getFileName().toString());
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
        byte[] bytes = read(manifest);
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        Matcher txn = TXN_NAME.matcher(text);
        while (txn.find()) {
            into.txns.add(txn.group());
        }
        for (String candidate : indexCandidates) {
            if (mentionsUuid(bytes, text, candidate)) {
                into.indexDirs.add(candidate);
            }
        }
    }

    /** A uuid is stored as 16 raw bytes in Lance's protobuf; its text form is accepted too. */
    private static boolean mentionsUuid(byte[] bytes, String text, String candidate) {
        if (text.contains(candidate)) {
            return true;
        }
        UUID uuid;
        try {
            uuid = UUID.fromString(candidate);
        } catch (IllegalArgumentException notUuid) {
            return false;
        }
        byte[] raw = ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits()).array();
        return text.contains(new String(raw, StandardCharsets.ISO_8859_1));
    }

    /** Every deletion file a kept version names must exist; if one does not, this code misreads the naming and deletes none. */
    private static boolean verifyDeletionNames(List<RefVersions> refs, References kept) {
        Set<String> onDisk = new HashSet<>();
        refs.forEach(ref -> onDisk.addAll(names(ref.dir().resolve("_deletions"), Files::isRegularFile)));
        return onDisk.containsAll(kept.deletions);
    }

    private static boolean olderThan(Path file, Instant cutoff) {
        try {
            return Files.getLastModifiedTime(file).toInstant().isBefore(cutoff);
        } catch (IOException e) {
            return false; // unreadable: keep it
        }
    }

    private static List<Path> entries(Path dir, java.util.function.Predicate<Path> filter) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> list = Files.list(dir)) {
            return list.filter(filter).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("could not list " + dir, e);
        }
    }

    private static Set<String> names(Path dir, java.util.function.Predicate<Path> filter) {
        Set<String> out = new HashSet<>();
        entries(dir, filter).forEach(path -> out.add(path.getFileName().toString()));
        return out;
    }

    private static long size(Path path) {
        try (Stream<Path> walk = Files.walk(path)) {
            return walk.filter(Files::isRegularFile).mapToLong(file -> {
                try {
                    return Files.size(file);
                } catch (IOException gone) {
                    return 0;
                }
            }).sum();
        } catch (IOException e) {
            return 0;
        }
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + file, e);
        }
    }

    private static void deleteTree(Path target) {
        try (Stream<Path> walk = Files.walk(target)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (java.nio.file.NoSuchFileException gone) {
            // deleted meanwhile (a rerun): nothing left to do
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + target, e);
        }
    }
}

package dev.omnigraph.storage;

import dev.omnigraph.storage.ObjectStore.StoredObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The files of one Lance dataset as one recursive listing of its key prefix shows them, split by the ref whose
 * directory holds them: main at {@code <location>/}, each Lance branch at {@code <location>/tree/<name>/}. A key
 * belongs to the ref with the longest matching directory (so branch {@code a/b}'s files are not {@code a}'s), and
 * only Lance's own layout below it counts: {@code _versions/<n>.manifest}, {@code data/*.lance},
 * {@code _deletions/*}, {@code _transactions/*} and {@code _indices/<uuid>/…}. Anything else (refs, trees no ref
 * names, a store's temp files) is not listed here, so version GC never touches it.
 */
record DatasetFiles(Map<Optional<String>, RefFiles> refs) {
    private static final Pattern MANIFEST = Pattern.compile("(\\d+)\\.manifest");
    /** Lance's V2 manifest naming stores {@code u64::MAX - version} in 20 digits. */
    private static final int V2_DIGITS = 20;

    /** One ref's files: manifests by version, and the data, deletion, transaction and index files beside them. */
    record RefFiles(TreeMap<Long, StoredObject> manifests, List<StoredObject> data, List<StoredObject> deletions,
                    List<StoredObject> transactions, Map<String, List<StoredObject>> indexes) {
        static RefFiles empty() {
            return new RefFiles(new TreeMap<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>(),
                    new LinkedHashMap<>());
        }
    }

    /** Splits {@code listed} (every key under {@code location/}) between main and {@code branches}. */
    static DatasetFiles of(String location, List<LanceBranch> branches, List<StoredObject> listed) {
        Map<String, Optional<String>> byDirectory = new HashMap<>();
        byDirectory.put(location + "/", Optional.empty());
        branches.forEach(branch -> byDirectory.put(location + "/tree/" + branch.name() + "/", Optional.of(branch.name())));
        Map<Optional<String>, RefFiles> refs = new LinkedHashMap<>();
        refs.put(Optional.empty(), RefFiles.empty());
        branches.forEach(branch -> refs.put(Optional.of(branch.name()), RefFiles.empty()));
        for (StoredObject object : listed) {
            String directory = null;
            for (String candidate : byDirectory.keySet()) {
                if (object.key().startsWith(candidate) && (directory == null || candidate.length() > directory.length())) {
                    directory = candidate;
                }
            }
            if (directory != null) {
                place(refs.get(byDirectory.get(directory)), object, object.key().substring(directory.length()));
            }
        }
        return new DatasetFiles(refs);
    }

    private static void place(RefFiles into, StoredObject object, String relative) {
        int slash = relative.indexOf('/');
        if (slash < 0) {
            return;
        }
        String folder = relative.substring(0, slash);
        String rest = relative.substring(slash + 1);
        boolean plain = !rest.isEmpty() && rest.indexOf('/') < 0;
        switch (folder) {
            case "_versions" -> {
                if (plain) {
                    versionOf(rest).ifPresent(version -> into.manifests().put(version, object));
                }
            }
            case "data" -> {
                if (plain && rest.endsWith(".lance")) {
                    into.data().add(object);
                }
            }
            case "_deletions" -> {
                if (plain) {
                    into.deletions().add(object);
                }
            }
            case "_transactions" -> {
                if (plain) {
                    into.transactions().add(object);
                }
            }
            case "_indices" -> {
                int end = rest.indexOf('/');
                if (end > 0 && isUuid(rest.substring(0, end))) {
                    into.indexes().computeIfAbsent(rest.substring(0, end), unused -> new ArrayList<>()).add(object);
                }
            }
            default -> {
                // not a file of this ref's versions
            }
        }
    }

    /** The version a manifest file name stands for (either of Lance's two namings), if it is one. */
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

    /** The last segment of a key. */
    static String fileName(String key) {
        return key.substring(key.lastIndexOf('/') + 1);
    }

    private static boolean isUuid(String name) {
        try {
            return UUID.fromString(name).toString().equalsIgnoreCase(name);
        } catch (IllegalArgumentException notUuid) {
            return false;
        }
    }
}

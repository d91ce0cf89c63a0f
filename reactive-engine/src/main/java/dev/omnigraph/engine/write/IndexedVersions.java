package dev.omnigraph.engine.write;

import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.manifest.ManifestStore;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.WeakHashMap;
import reactor.core.publisher.Mono;

/**
 * The index names of table versions a handle's writers have seen, so deciding whether a write must build a missing
 * index costs nothing in the steady state: a data commit keeps its read version's indexes, so a version this
 * handle's own write produced inherits the names of the one it read (plus what its index transaction built). Anything
 * else (a version another process wrote, a restore) is read once from storage. Bounded (oldest entries dropped).
 */
final class IndexedVersions {
    private static final int CAPACITY = 4096;
    private static final Map<ManifestStore, IndexedVersions> BY_HANDLE = Collections.synchronizedMap(new WeakHashMap<>());

    private final Map<String, List<String>> names = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, List<String>> eldest) {
            return size() > CAPACITY;
        }
    });

    static IndexedVersions of(WriteContext ctx) {
        return BY_HANDLE.computeIfAbsent(ctx.manifest(), handle -> new IndexedVersions());
    }

    /** The index names of {@code version} of {@code ref}, from memory or from storage. */
    Mono<List<String>> at(TableStorage tables, TableRef ref, long version) {
        List<String> known = names.get(key(ref, version));
        return known != null ? Mono.just(known)
                : tables.indexNames(ref, version).doOnNext(read -> names.put(key(ref, version), List.copyOf(read)));
    }

    /** {@code landed} of {@code ref} was written by a data commit read at {@code read} that also built {@code built}. */
    void carry(TableRef ref, long read, long landed, Collection<String> built) {
        List<String> before = names.get(key(ref, read));
        if (before != null) {
            TreeSet<String> after = new TreeSet<>(before);
            after.addAll(built);
            names.put(key(ref, landed), List.copyOf(after));
        }
    }

    private static String key(TableRef ref, long version) {
        return ref.path() + "\u0000" + ref.branch().orElse("") + "\u0000" + version;
    }
}

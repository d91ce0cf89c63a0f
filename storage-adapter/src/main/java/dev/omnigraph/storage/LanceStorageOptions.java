package dev.omnigraph.storage;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The Lance storage options (object-store settings: endpoint, region, credentials) of each graph root URI in this
 * process. Lance must be given the same options on every create, open and fragment write of a remote dataset, so
 * the seam looks them up by URI here instead of threading them through every {@link TableRef}. Local paths have
 * none. A root registers a source, asked on every lookup: credentials that expire are resolved again by their
 * source (see {@link CredentialRefresh}), so each open gets ones that still work; lookups run on storage threads,
 * since a source may block (a profile file, an instance metadata service).
 */
public final class LanceStorageOptions {
    private static final Map<String, Supplier<Current>> BY_ROOT = new ConcurrentHashMap<>();

    /** The options to open with now, and when the credentials in them expire (empty: they do not). */
    public record Current(Map<String, String> options, Optional<Instant> expiresAt) {
        static final Current NONE = new Current(Map.of(), Optional.empty());

        public Current {
            options = Map.copyOf(options);
            Objects.requireNonNull(expiresAt, "expiresAt");
        }
    }

    private LanceStorageOptions() {
    }

    /** Binds fixed {@code options} to every dataset URI under {@code rootUri} (a root opened again replaces them). */
    public static void register(String rootUri, Map<String, String> options) {
        Current fixed = new Current(options, Optional.empty());
        BY_ROOT.put(withSlash(rootUri), () -> fixed);
    }

    /**
     * Binds {@code source} to every dataset URI under {@code rootUri}. It is asked once now (so a root whose
     * credentials cannot be resolved fails its open) and again on every lookup.
     */
    public static void register(String rootUri, Supplier<Current> source) {
        Objects.requireNonNull(source.get(), "storage options");
        BY_ROOT.put(withSlash(rootUri), source);
    }

    /** The options of the longest registered root containing {@code uri}; empty when none does. */
    static Map<String, String> forUri(String uri) {
        return currentFor(uri).options();
    }

    /** As {@link #forUri}, with the expiry of the credentials in them. */
    static Current currentFor(String uri) {
        if (!uri.contains("://")) {
            return Current.NONE;
        }
        String key = withSlash(uri);
        Supplier<Current> best = null;
        int bestLength = -1;
        for (Map.Entry<String, Supplier<Current>> entry : BY_ROOT.entrySet()) {
            if (key.startsWith(entry.getKey()) && entry.getKey().length() > bestLength) {
                best = entry.getValue();
                bestLength = entry.getKey().length();
            }
        }
        return best == null ? Current.NONE : best.get();
    }

    private static String withSlash(String uri) {
        return uri.endsWith("/") ? uri : uri + "/";
    }
}

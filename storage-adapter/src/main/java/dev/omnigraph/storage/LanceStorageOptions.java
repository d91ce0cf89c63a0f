package dev.omnigraph.storage;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The Lance storage options (object-store settings: endpoint, region, credentials) of each graph root URI in this
 * process. Lance must be given the same options on every create, open and fragment write of a remote dataset, so
 * the seam looks them up by URI here instead of threading them through every {@link TableRef}. Local paths have
 * none.
 */
public final class LanceStorageOptions {
    private static final Map<String, Map<String, String>> BY_ROOT = new ConcurrentHashMap<>();

    private LanceStorageOptions() {
    }

    /** Binds {@code options} to every dataset URI under {@code rootUri} (a root opened again replaces them). */
    public static void register(String rootUri, Map<String, String> options) {
        BY_ROOT.put(withSlash(rootUri), Map.copyOf(options));
    }

    /** The options of the longest registered root containing {@code uri}; empty when none does. */
    static Map<String, String> forUri(String uri) {
        if (!uri.contains("://")) {
            return Map.of();
        }
        String key = withSlash(uri);
        Map<String, String> best = Map.of();
        int bestLength = -1;
        for (Map.Entry<String, Map<String, String>> entry : BY_ROOT.entrySet()) {
            if (key.startsWith(entry.getKey()) && entry.getKey().length() > bestLength) {
                best = entry.getValue();
                bestLength = entry.getKey().length();
            }
        }
        return best;
    }

    private static String withSlash(String uri) {
        return uri.endsWith("/") ? uri : uri + "/";
    }
}

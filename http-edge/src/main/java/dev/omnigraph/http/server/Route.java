package dev.omnigraph.http.server;

import dev.omnigraph.engine.Omnigraph;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * One route: a method and a path (below the graph prefix for per-graph routes), with {@code {name}} segments
 * captured, its handler and its OpenAPI description.
 */
record Route(String method, String path, Handler handler, ApiDoc doc) {

    @FunctionalInterface
    interface Handler {
        /** {@code graph} is null for the top-level routes, which serve no one graph. */
        Mono<Void> handle(Exchange exchange, Omnigraph graph, Map<String, String> vars);
    }

    /**
     * The captured variables when the raw (still encoded) {@code segments} match this route's path, method aside.
     * Literals match raw segments; captures are decoded after matching, so {@code %2F} is data, never a separator.
     */
    Optional<Map<String, String>> match(List<String> segments) {
        String[] parts = path.split("/");
        if (parts.length != segments.size()) return Optional.empty();
        Map<String, String> vars = new HashMap<>();
        for (int i = 0; i < parts.length; i++) {
            String part = parts[i];
            if (part.startsWith("{") && part.endsWith("}")) {
                vars.put(part.substring(1, part.length() - 1), RequestTarget.decode(segments.get(i)));
            } else if (!part.equals(segments.get(i))) {
                return Optional.empty();
            }
        }
        return Optional.of(vars);
    }
}

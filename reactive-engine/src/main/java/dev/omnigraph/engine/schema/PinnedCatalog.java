package dev.omnigraph.engine.schema;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The catalog a query pinned to an older commit compiles against: the schema of that commit ({@code historical}),
 * where type names are resolved by identity through today's schema ({@code live}), as the reference does.
 * <ul>
 * <li>A type renamed since (same type id, another name today) answers to its name of today too, and reads the
 * table it had at that commit; its name of that time keeps working.</li>
 * <li>A name whose type of today did not exist at that commit, while a type of that name did (dropped and
 * re-created since, so another identity), is refused: {@link #refusal} names it, rather than reading a different
 * type's rows.</li>
 * </ul>
 */
public final class PinnedCatalog {
    private PinnedCatalog() {
    }

    /** {@code historical} with today's names of its renamed types as aliases; itself when nothing was renamed. */
    public static Catalog of(Catalog historical, Catalog live) {
        Map<String, NodeTable> nodeAliases = new LinkedHashMap<>();
        for (NodeTable today : live.nodes().values()) {
            byId(historical.nodes(), today).filter(then -> !then.typeName().equals(today.typeName()))
                    .ifPresent(then -> nodeAliases.put(today.typeName(), then));
        }
        Map<String, EdgeTable> edgeAliases = new LinkedHashMap<>();
        for (EdgeTable today : live.edges().values()) {
            byId(historical.edges(), today).filter(then -> !then.typeName().equals(today.typeName()))
                    .ifPresent(then -> edgeAliases.put(today.typeName(), then));
        }
        return nodeAliases.isEmpty() && edgeAliases.isEmpty() ? historical
                : historical.withAliases(nodeAliases, edgeAliases);
    }

    /**
     * Why a query reading {@code used} (a table of the historical catalog) at that commit is refused, or empty:
     * today a different type (another identity, not present at that commit) carries that table's name.
     */
    public static Optional<String> refusal(CatalogTable used, Catalog historical, Catalog live, String commit) {
        Map<String, ? extends CatalogTable> today = used instanceof EdgeTable ? live.edges() : live.nodes();
        CatalogTable sameName = today.get(used.typeName());
        if (sameName == null || sameName.typeId() == used.typeId()) {
            return Optional.empty();
        }
        Map<String, ? extends CatalogTable> then = used instanceof EdgeTable ? historical.edges() : historical.nodes();
        boolean existedThen = then.values().stream().anyMatch(t -> t.typeId() == sameName.typeId());
        return existedThen ? Optional.empty() : Optional.of("type '" + used.typeName() + "' was dropped and re-created "
                + "since commit " + commit + ": today's " + used.typeName() + " did not exist then, and the "
                + used.typeName() + " of that commit is another type, so it is not read by that name");
    }

    private static <T extends CatalogTable> Optional<T> byId(Map<String, T> tables, CatalogTable wanted) {
        Map<Long, T> byId = new HashMap<>();
        tables.values().forEach(t -> byId.putIfAbsent(t.typeId(), t));
        return Optional.ofNullable(byId.get(wanted.typeId()));
    }
}

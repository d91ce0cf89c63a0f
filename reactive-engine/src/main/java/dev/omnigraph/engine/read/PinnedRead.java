package dev.omnigraph.engine.read;

import dev.omnigraph.engine.query.ReadPlan;
import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.PinnedCatalog;
import dev.omnigraph.storage.error.BadRequest;
import java.util.LinkedHashSet;
import java.util.Set;

/** The identity check of a read pinned to an older commit: no table it reads may be a dropped-and-re-created name. */
public final class PinnedRead {
    private PinnedRead() {
    }

    /** Refuses (400) {@code plan} when a type it reads is, by name, today another type that did not exist then. */
    public static void requireSameTypes(ReadPlan plan, Catalog historical, Catalog live, String commit) {
        for (CatalogTable used : tables(plan.match(), new LinkedHashSet<>())) {
            PinnedCatalog.refusal(used, historical, live, commit).ifPresent(reason -> {
                throw new BadRequest("query '" + plan.name() + "' at commit " + commit + ": " + reason);
            });
        }
    }

    private static Set<CatalogTable> tables(ReadPlan.MatchPlan match, Set<CatalogTable> into) {
        match.nodes().forEach(node -> into.add(node.table()));
        match.traversals().forEach(traversal -> into.add(traversal.edge()));
        match.negations().forEach(negation -> tables(negation.inner(), into));
        return into;
    }
}

package dev.omnigraph.engine.query;

import dev.omnigraph.storage.ValidText;
import dev.omnigraph.storage.error.BadRequest;
import java.util.List;

/** A parsed {@code .gq} file: its query declarations in source order (names are unique). */
public record QueryFile(List<QueryDecl> queries) {
    public QueryFile {
        queries = List.copyOf(queries);
    }

    /** Query names in source order. */
    public List<String> names() {
        return queries.stream().map(QueryDecl::name).toList();
    }

    /** @throws BadRequest when the file declares no query of that name; the message lists the ones it has */
    public QueryDecl query(String name) {
        ValidText.require("query name", name);
        for (QueryDecl q : queries) {
            if (q.name().equals(name)) return q;
        }
        String available = queries.isEmpty() ? "the file declares no queries" : "available: " + String.join(", ", names());
        throw new BadRequest("no query named '" + name + "' in this file (" + available + ")");
    }
}

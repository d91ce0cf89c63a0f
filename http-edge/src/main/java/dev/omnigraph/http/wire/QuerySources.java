package dev.omnigraph.http.wire;

import dev.omnigraph.engine.query.QueryCompiler;
import dev.omnigraph.engine.query.QueryDecl;
import dev.omnigraph.engine.query.QueryFile;
import dev.omnigraph.storage.error.BadRequest;
import java.util.List;

/** Picks the query a request means from a {@code .gq} source (parsing only: no catalog, no I/O). */
public final class QuerySources {
    /** How many query names a "name the one to run" refusal lists before "and N more". */
    private static final int NAMES_LISTED = 10;

    private QuerySources() {
    }

    /**
     * The declaration named {@code name}, or the only one when {@code name} is null. Parse errors surface as the
     * compiler's {@code ParseError} with line and column.
     */
    public static QueryDecl pick(String source, String name) {
        if (source == null || source.isBlank()) throw new BadRequest("query source is empty");
        QueryFile file = QueryCompiler.parse(source);
        if (name != null && !name.isBlank()) return file.query(name);
        if (file.queries().isEmpty()) throw new BadRequest("query file contains no query");
        if (file.queries().size() > 1) {
            List<String> names = file.names();
            String listed = String.join(", ", names.subList(0, Math.min(NAMES_LISTED, names.size())))
                    + (names.size() > NAMES_LISTED ? ", and " + (names.size() - NAMES_LISTED) + " more" : "");
            throw new BadRequest("the source declares " + names.size() + " queries (" + listed + "); name the one to run");
        }
        return file.queries().get(0);
    }

    /** A read query, refusing a mutation with a pointer to the write route. */
    public static QueryDecl pickRead(String source, String name) {
        QueryDecl decl = pick(source, name);
        if (decl.isMutation()) {
            throw new BadRequest("query '" + decl.name() + "' is a mutation; run it with POST /mutate (CLI: omnigraph mutate)");
        }
        return decl;
    }
}

package dev.omnigraph.engine.query;

import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.ParseError;
import java.util.List;
import java.util.Map;

/**
 * Entry point of the {@code .gq} front end: parse a file, check one query against a catalog, bind parameters.
 * Pure: no I/O, no clock (the caller supplies {@code now} when resolving values).
 */
public final class QueryCompiler {
    private QueryCompiler() {}

    /**
     * Parses a query file.
     *
     * @throws ParseError source "query", the offending token's 1-based line/column, subject = the query name
     *         (empty before it is read), message prefixed "Q000: " (or "T3: " for an invalid date literal)
     */
    public static QueryFile parse(String source) {
        return Parser.parse(source);
    }

    /**
     * Type-checks one declaration against a catalog.
     *
     * @throws ParseError for type errors, the code (T1…T23) prefixed to the message
     * @throws BadRequest for a mutation mixing inserts/updates with deletes (D2)
     */
    public static CompiledQuery check(QueryDecl decl, Catalog catalog) {
        CheckContext cx = new CheckContext(catalog, decl);
        if (decl.body() instanceof Ast.MutationBody m) return new MutationChecker(cx).check(m);
        return new ReadChecker(cx).check((Ast.ReadBody) decl.body());
    }

    /** Parses {@code source} and checks the query called {@code name}. */
    public static CompiledQuery compile(String source, String name, Catalog catalog) {
        return check(parse(source).query(name), catalog);
    }

    /** See {@link ParamBinder#bind}. */
    public static BoundParams bind(List<ParamDecl> decls, Map<String, Object> raw) {
        return ParamBinder.bind(decls, raw);
    }
}

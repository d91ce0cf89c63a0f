package dev.omnigraph.engine.query;

import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.ParseError;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Entry point of the {@code .gq} front end: parse a file, check one query against a catalog, bind parameters.
 * Pure: no I/O, no clock (the caller supplies {@code now} when resolving values). Bounded: see {@link Parser}
 * for the source-length and nesting limits; as a second line of defence a stack overflow anywhere in the front
 * end is reported as a {@link ParseError}, never thrown as an {@link Error}.
 */
public final class QueryCompiler {
    private QueryCompiler() {}

    /**
     * Parses a query file.
     *
     * @throws ParseError source "query", the offending token's 1-based line/column, subject = the query name
     *         (empty before it is read), message prefixed "Q000: " (or "T3: " for an invalid date literal)
     * @throws dev.omnigraph.storage.error.ResourceLimitExceeded for a source longer than 1 Mi characters
     */
    public static QueryFile parse(String source) {
        // The same text always parses to the same (immutable) file: a repeated request parses once.
        return QueryCache.parse(source, () -> guarded(null, () -> Parser.parse(source)));
    }

    /**
     * Type-checks one declaration against a catalog.
     *
     * @throws ParseError for type errors, the code (T1…T23) prefixed to the message
     * @throws BadRequest for a mutation mixing inserts/updates with deletes (D2)
     */
    public static CompiledQuery check(QueryDecl decl, Catalog catalog) {
        return guarded(decl, () -> {
            CheckContext cx = new CheckContext(catalog, decl);
            if (decl.body() instanceof Ast.MutationBody m) return new MutationChecker(cx).check(m);
            return new ReadChecker(cx).check((Ast.ReadBody) decl.body());
        });
    }

    /** Parses {@code source} and checks the query called {@code name}. */
    public static CompiledQuery compile(String source, String name, Catalog catalog) {
        return check(parse(source).query(name), catalog);
    }

    /** Runs one front-end step, turning a stack overflow into a parse error at {@code decl} (or 1:1). */
    private static <T> T guarded(QueryDecl decl, Supplier<T> step) {
        try {
            return step.get();
        } catch (StackOverflowError e) {
            Ast.Pos at = decl == null ? new Ast.Pos(1, 1) : decl.pos();
            throw new ParseError(Parser.SOURCE, at.line(), at.column(), decl == null ? "" : decl.name(),
                    "Q000: the query is nested too deeply to compile");
        }
    }

    /** See {@link ParamBinder#bind}. */
    public static BoundParams bind(List<ParamDecl> decls, Map<String, Object> raw) {
        return ParamBinder.bind(decls, raw);
    }
}

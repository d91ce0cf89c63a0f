package dev.omnigraph.engine.schema;

import dev.omnigraph.engine.lex.SourceCursor;
import dev.omnigraph.storage.error.ParseError;

/**
 * Entry point of the {@code .pg} front end: lex + parse + check. Bounded: the source is at most
 * {@link #MAX_SOURCE_CHARS} characters, and the grammar has no nesting forms (the parser does not recurse);
 * as a second line of defence a stack overflow is reported as a {@link ParseError}, never thrown as an Error.
 */
public final class SchemaCompiler {
    /** Longest accepted {@code .pg} source, in UTF-16 characters; far above any real schema. */
    static final int MAX_SOURCE_CHARS = 4 << 20;

    private SchemaCompiler() {}

    /**
     * Compiles {@code .pg} source text.
     *
     * @throws dev.omnigraph.storage.error.ParseError (source "schema", 1-based line/column of the offending
     *         token, subject = the declaration containing it, e.g. "node Person" or "node Person.age")
     * @throws dev.omnigraph.storage.error.ResourceLimitExceeded for a source longer than 4 Mi characters
     */
    public static CompiledSchema compile(String source) {
        SourceCursor.requireLength("schema source length (characters)", source, MAX_SOURCE_CHARS);
        try {
            Lexer lexer = new Lexer(source);
            Ast.SchemaFile file = new Parser(lexer).parseFile();
            return new Checker().check(file);
        } catch (StackOverflowError e) {
            throw new ParseError(Lexer.SOURCE, 1, 1, "", "the schema is too complex to compile");
        }
    }
}

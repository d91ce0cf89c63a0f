package dev.omnigraph.engine.schema;

/** Entry point of the {@code .pg} front end: lex + parse + check. */
public final class SchemaCompiler {
    private SchemaCompiler() {}

    /**
     * Compiles {@code .pg} source text.
     *
     * @throws dev.omnigraph.storage.error.ParseError (source "schema", 1-based line/column of the offending
     *         token, subject = the declaration containing it, e.g. "node Person" or "node Person.age")
     */
    public static CompiledSchema compile(String source) {
        Lexer lexer = new Lexer(source);
        Ast.SchemaFile file = new Parser(lexer).parseFile();
        return new Checker().check(file);
    }
}

package dev.omnigraph.engine.schema;

/** One lexical token of {@code .pg}. {@code text} is the decoded value for strings and the source text otherwise. */
record Token(Kind kind, String text, int line, int column) {

    enum Kind {
        TYPE_NAME("type name"),
        IDENT("identifier"),
        INTEGER("integer"),
        FLOAT("float"),
        STRING("string"),
        ENUM_VALUE("enum value"),
        LBRACE("'{'"),
        RBRACE("'}'"),
        LPAREN("'('"),
        RPAREN("')'"),
        LBRACKET("'['"),
        RBRACKET("']'"),
        COLON("':'"),
        COMMA("','"),
        ARROW("'->'"),
        DOTDOT("'..'"),
        QUESTION("'?'"),
        AT("'@'"),
        MINUS("'-'"),
        EQUALS("'='"),
        EOF("end of input");

        final String description;

        Kind(String description) {
            this.description = description;
        }
    }

    Pos pos() {
        return new Pos(line, column);
    }

    boolean is(Kind k) {
        return kind == k;
    }

    boolean isIdent(String word) {
        return kind == Kind.IDENT && text.equals(word);
    }

    /** What the token looks like in an error message. */
    String describe() {
        return switch (kind) {
            case EOF -> "end of input";
            case STRING -> "string \"" + text + "\"";
            default -> "'" + text + "'";
        };
    }

    /** A 1-based source position. */
    record Pos(int line, int column) {}
}

package dev.omnigraph.engine.query;

/** One lexical token of {@code .gq}. {@code text} is the decoded value for strings, the name for variables, else the source text. */
record Token(Kind kind, String text, int line, int column) {

    enum Kind {
        TYPE_NAME("type name"),
        IDENT("identifier"),
        VARIABLE("variable"),
        INTEGER("integer"),
        FLOAT("float"),
        STRING("string"),
        LBRACE("'{'"),
        RBRACE("'}'"),
        LPAREN("'('"),
        RPAREN("')'"),
        LBRACKET("'['"),
        RBRACKET("']'"),
        COLON("':'"),
        COMMA("','"),
        DOT("'.'"),
        QUESTION("'?'"),
        AT("'@'"),
        EQ("'='"),
        NE("'!='"),
        LT("'<'"),
        LE("'<='"),
        GT("'>'"),
        GE("'>='"),
        /** A lexical error; {@code text} is the message. The parser raises it when it reaches the token, so the error carries the query name. */
        ERROR("invalid input"),
        EOF("end of input");

        final String description;

        Kind(String description) {
            this.description = description;
        }
    }

    boolean is(Kind k) {
        return kind == k;
    }

    boolean isWord(String word) {
        return kind == Kind.IDENT && text.equals(word);
    }

    Ast.Pos pos() {
        return new Ast.Pos(line, column);
    }

    /** What the token looks like in an error message. */
    String describe() {
        return switch (kind) {
            case EOF -> "end of input";
            case STRING -> "string \"" + text + "\"";
            case VARIABLE -> "'$" + text + "'";
            default -> "'" + text + "'";
        };
    }
}

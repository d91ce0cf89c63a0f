package dev.omnigraph.engine.query;

import dev.omnigraph.engine.query.Ast.Pos;
import dev.omnigraph.engine.lex.SourceCursor;
import dev.omnigraph.engine.query.Token.Kind;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import dev.omnigraph.storage.error.ParseError;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Recursive-descent parser of {@code .gq} files. Syntax errors are {@link ParseError}s with source "query",
 * the offending token's position, the query name as subject (empty before it is read) and a "Q000: " prefix.
 * Expression forms ({@link ExprParser}) live apart to keep each file readable.
 *
 * <p>Work is bounded so that compiling cannot exhaust the stack or stall the caller's thread: the source is at
 * most {@link #MAX_SOURCE_CHARS} characters, and the forms that nest ({@code not { }} blocks, list literals,
 * aggregate calls) at most {@link #MAX_NESTING} levels deep together; deeper input is a positioned error.
 */
final class Parser {
    static final String SOURCE = "query";
    static final String NOW_PARAM = "__nanograph_now";
    static final Set<String> TEXT_SEARCH = Set.of("search", "fuzzy", "match_text", "bm25", "rrf", "nearest");
    /** Longest accepted {@code .gq} source, in UTF-16 characters: the HTTP body limit (1 MiB) in characters. */
    static final int MAX_SOURCE_CHARS = 1 << 20;
    /** Deepest accepted nesting of {@code not { }}, list literals and aggregate calls, counted together. */
    static final int MAX_NESTING = 64;

    private final List<Token> tokens;
    private int index;
    /** How many nesting forms enclose the current token; see {@link #enter}. */
    private int depth;
    /** The query being parsed, reported as the error subject. */
    String subject = "";
    final ExprParser exprs = new ExprParser(this);

    private Parser(List<Token> tokens) {
        this.tokens = tokens;
    }

    static QueryFile parse(String source) {
        SourceCursor.requireLength("query source length (characters)", source, MAX_SOURCE_CHARS);
        return new Parser(Lexer.tokenize(source)).file();
    }

    /**
     * Enters one nesting form opened by {@code at}; pair with {@link #leave}. The recursive descent uses a few
     * stack frames per level, so the bound keeps any input far from a stack overflow.
     */
    void enter(Token at) {
        if (++depth > MAX_NESTING)
            throw syntax(at, "nesting deeper than " + MAX_NESTING + " levels (not { } blocks, list literals and"
                    + " aggregate calls count together)");
    }

    void leave() {
        depth--;
    }

    // ---- token access ----------------------------------------------------------------------------------

    /** The current token; a lexical error surfaces here, as soon as the parser looks at it. */
    Token peek() {
        Token t = tokens.get(index);
        if (t.is(Kind.ERROR)) throw syntax(t, t.text());
        return t;
    }

    /** Lookahead without raising lexical errors (an ERROR token simply matches nothing). */
    Token peek(int ahead) {
        return tokens.get(Math.min(index + ahead, tokens.size() - 1));
    }

    Token next() {
        Token t = peek();
        if (!t.is(Kind.EOF)) index++;
        return t;
    }

    boolean at(Kind kind) {
        return peek().is(kind);
    }

    boolean atWord(String word) {
        return peek().isWord(word);
    }

    Token expect(Kind kind, String context) {
        Token t = peek();
        if (!t.is(kind)) throw syntax(t, "expected " + kind.description + context + ", found " + t.describe());
        return next();
    }

    Token expectWord(String word, String context) {
        Token t = peek();
        if (!t.isWord(word)) throw syntax(t, "expected '" + word + "'" + context + ", found " + t.describe());
        return next();
    }

    ParseError syntax(Token at, String message) {
        return syntax(at.pos(), message);
    }

    ParseError syntax(Pos at, String message) {
        return new ParseError(SOURCE, at.line(), at.column(), subject, "Q000: " + message);
    }

    ParseError coded(Pos at, String code, String message) {
        return new ParseError(SOURCE, at.line(), at.column(), subject, code + ": " + message);
    }

    /** Whether {@code t} opens one of the search calls ({@code search(…)}, {@code bm25(…)}, …). */
    boolean atSearchCall(Token t) {
        return t.is(Kind.IDENT) && TEXT_SEARCH.contains(t.text()) && peek(1).is(Kind.LPAREN);
    }

    // ---- declarations ----------------------------------------------------------------------------------

    private QueryFile file() {
        List<QueryDecl> queries = new ArrayList<>();
        Map<String, Pos> seen = new HashMap<>();
        while (!at(Kind.EOF)) {
            subject = "";
            QueryDecl q = decl();
            Pos first = seen.putIfAbsent(q.name(), q.pos());
            if (first != null)
                throw syntax(q.pos(), "duplicate query name '" + q.name() + "' (first declared at line " + first.line() + ")");
            queries.add(q);
        }
        return new QueryFile(queries);
    }

    private QueryDecl decl() {
        Token kw = peek();
        if (!kw.isWord("query")) throw syntax(kw, "expected 'query', found " + kw.describe());
        next();
        Token name = peek();
        if (!name.is(Kind.IDENT))
            throw syntax(name, "expected a query name (a lowercase identifier), found " + name.describe());
        next();
        subject = name.text();
        expect(Kind.LPAREN, " after the query name");
        List<ParamDecl> params = new ArrayList<>();
        Set<String> names = new HashSet<>();
        if (!at(Kind.RPAREN)) {
            do {
                ParamDecl p = param();
                if (!names.add(p.name())) throw syntax(p.pos(), "duplicate parameter '$" + p.name() + "'");
                params.add(p);
            } while (at(Kind.COMMA) && next() != null);
        }
        expect(Kind.RPAREN, " to close the parameter list");
        String description = null;
        String instruction = null;
        while (at(Kind.AT)) {
            Token at = next();
            Token ann = peek();
            if (!ann.isWord("description") && !ann.isWord("instruction"))
                throw syntax(ann, "unknown query annotation " + ann.describe() + " (allowed: @description, @instruction)");
            next();
            expect(Kind.LPAREN, " after @" + ann.text());
            String text = expect(Kind.STRING, " as the @" + ann.text() + " argument").text();
            expect(Kind.RPAREN, " to close @" + ann.text());
            boolean isDescription = ann.text().equals("description");
            if (isDescription ? description != null : instruction != null)
                throw syntax(at, "duplicate @" + ann.text());
            if (isDescription) description = text;
            else instruction = text;
        }
        expect(Kind.LBRACE, " to open the query body");
        Ast.Body body = body();
        expect(Kind.RBRACE, " to close query " + name.text());
        return new QueryDecl(name.text(), params, description, instruction, body, name.pos());
    }

    private ParamDecl param() {
        Token v = peek();
        if (!v.is(Kind.VARIABLE)) throw syntax(v, "expected a parameter ($name), found " + v.describe());
        next();
        if (v.text().equals(NOW_PARAM)) throw syntax(v, "'$" + NOW_PARAM + "' is reserved for now()");
        expect(Kind.COLON, " after parameter $" + v.text());
        PropertyType type;
        Token t = peek();
        if (t.is(Kind.LBRACKET)) {
            next();
            type = new PropertyType.ListOf(baseType());
            expect(Kind.RBRACKET, " to close the list type");
        } else if (t.is(Kind.TYPE_NAME) && t.text().equals("Vector")) {
            next();
            expect(Kind.LPAREN, " after Vector");
            Token dim = expect(Kind.INTEGER, " as the vector dimension");
            long d = parseLong(dim);
            if (d < 1 || d > Integer.MAX_VALUE)
                throw syntax(dim, "vector dimension must be between 1 and " + Integer.MAX_VALUE + ", got " + dim.text());
            expect(Kind.RPAREN, " to close Vector(…)");
            type = new PropertyType.VectorOf((int) d);
        } else {
            type = new PropertyType.Scalar(baseType());
        }
        boolean optional = at(Kind.QUESTION) && next() != null;
        return new ParamDecl(v.text(), type, optional, v.pos());
    }

    private ScalarKind baseType() {
        Token t = peek();
        if (t.is(Kind.TYPE_NAME) && t.text().equals("Blob"))
            throw syntax(t, "Blob parameters are not supported by this engine");
        if (!t.is(Kind.TYPE_NAME) || ScalarKind.fromSpelling(t.text()).isEmpty())
            throw syntax(t, "expected a parameter type (String, Bool, I32, I64, U32, U64, F32, F64, Date, DateTime,"
                    + " [T] or Vector(n)), found " + t.describe());
        next();
        return ScalarKind.fromSpelling(t.text()).orElseThrow();
    }

    long parseLong(Token t) {
        try {
            return Long.parseLong(t.text());
        } catch (NumberFormatException e) {
            throw syntax(t, "integer " + t.text() + " is too large");
        }
    }

    // ---- bodies ----------------------------------------------------------------------------------------

    private Ast.Body body() {
        Token t = peek();
        if (isMutationKeyword(t)) {
            List<Ast.Statement> statements = new ArrayList<>();
            while (isMutationKeyword(peek())) statements.add(new MutationParser(this).statement());
            if (!at(Kind.RBRACE)) {
                Token bad = peek();
                throw syntax(bad, "expected 'insert', 'update', 'delete' or '}', found " + bad.describe()
                        + (bad.isWord("match") ? " (a query is either a read or a mutation, not both)" : ""));
            }
            return new Ast.MutationBody(statements);
        }
        if (!t.isWord("match"))
            throw syntax(t, "expected 'match' or a mutation ('insert', 'update', 'delete'), found " + t.describe());
        return readBody();
    }

    private static boolean isMutationKeyword(Token t) {
        return t.isWord("insert") || t.isWord("update") || t.isWord("delete");
    }

    private Ast.ReadBody readBody() {
        Token match = expectWord("match", "");
        expect(Kind.LBRACE, " after 'match'");
        List<Ast.Clause> clauses = clauses("match");
        expect(Kind.RBRACE, " to close the match block");

        Token ret = peek();
        if (!ret.isWord("return")) throw syntax(ret, "expected 'return' after the match block, found " + ret.describe());
        next();
        expect(Kind.LBRACE, " after 'return'");
        List<Ast.Projection> projections = new ArrayList<>();
        do {
            Pos pos = peek().pos();
            Ast.Expr e = exprs.expr();
            String alias = null;
            if (atWord("as")) {
                next();
                Token a = peek();
                if (!a.is(Kind.IDENT)) throw syntax(a, "expected an alias (a lowercase identifier) after 'as', found " + a.describe());
                alias = next().text();
            }
            projections.add(new Ast.Projection(e, alias, pos));
            if (at(Kind.COMMA)) next();
        } while (!at(Kind.RBRACE) && !at(Kind.EOF));
        expect(Kind.RBRACE, " to close the return block");

        List<Ast.Ordering> order = new ArrayList<>();
        if (atWord("order")) {
            next();
            expect(Kind.LBRACE, " after 'order'");
            do {
                Pos pos = peek().pos();
                Ast.Expr e = exprs.expr();
                boolean desc = false;
                if (atWord("asc")) {
                    rankDirection(e, next());
                } else if (atWord("desc")) {
                    rankDirection(e, next());
                    desc = true;
                }
                // bm25 and rrf rank best first (highest score); nearest closest first.
                if (e instanceof Ast.SearchCall c && !c.function().equals("nearest")) desc = true;
                order.add(new Ast.Ordering(e, desc, pos));
            } while (at(Kind.COMMA) && next() != null);
            expect(Kind.RBRACE, " to close the order block");
        }
        Long limit = null;
        Pos limitPos = null;
        if (atWord("limit")) {
            limitPos = next().pos();
            Token n = expect(Kind.INTEGER, " after 'limit'");
            limit = parseLong(n);
        }
        return new Ast.ReadBody(clauses, projections, order, limit, match.pos(), limitPos);
    }

    /** Rankings have one direction: nearest takes none, bm25 and rrf at most {@code desc} (their only order). */
    private void rankDirection(Ast.Expr e, Token dir) {
        if (!(e instanceof Ast.SearchCall c)) return;
        String code = switch (c.function()) {
            case "nearest" -> "T15";
            case "bm25" -> "T20";
            default -> "T21";
        };
        if (c.function().equals("nearest"))
            throw coded(dir.pos(), code, "nearest(…) orders closest first and takes no '" + dir.text() + "'");
        if (dir.isWord("asc"))
            throw coded(dir.pos(), code, c.function() + "(…) orders best first (highest score); 'asc' is not allowed");
    }

    /** One or more clauses up to (not including) the closing brace. */
    List<Ast.Clause> clauses(String block) {
        List<Ast.Clause> out = new ArrayList<>();
        if (at(Kind.RBRACE)) throw syntax(peek(), "the " + block + " block needs at least one clause");
        while (!at(Kind.RBRACE)) {
            if (at(Kind.EOF)) throw syntax(peek(), "expected '}' to close the " + block + " block, found end of input");
            out.add(clause());
        }
        return out;
    }

    private Ast.Clause clause() {
        Token t = peek();
        if (t.isWord("not") && peek(1).is(Kind.LBRACE)) {
            enter(t);
            next();
            next();
            List<Ast.Clause> inner = clauses("not");
            expect(Kind.RBRACE, " to close the not block");
            leave();
            return new Ast.Negation(inner, t.pos());
        }
        if (atSearchCall(t) && (t.isWord("search") || t.isWord("fuzzy") || t.isWord("match_text"))) {
            Ast.SearchCall call = (Ast.SearchCall) exprs.expr();
            if (ExprParser.compareOp(peek()) != null)
                throw coded(peek().pos(), t.isWord("match_text") ? "T20" : "T19", t.text()
                        + "(…) is a match clause of its own and cannot be compared");
            return new Ast.TextClause(call);
        }
        if (t.is(Kind.VARIABLE)) {
            if (peek(1).is(Kind.COLON)) return binding();
            if (traversalAhead()) return traversal();
        }
        Ast.Expr left = exprs.expr();
        Token op = peek();
        CompareOp cmp = ExprParser.compareOp(op);
        if (cmp == null) {
            String hint = left instanceof Ast.Var && op.is(Kind.IDENT)
                    ? " (a traversal '$a " + op.text() + " $b' needs a variable after the edge name)" : "";
            throw syntax(op, "expected a comparison operator (= != < <= > >= contains starts_with), found "
                    + op.describe() + hint);
        }
        next();
        Ast.Expr right = exprs.expr();
        return new Ast.Filter(left, cmp, right, left.pos(), op.pos());
    }

    /**
     * Decides between a traversal and a filter that both start with a variable, as the PEG does by ordered
     * choice: {@code $a [$e:] edge|<edge>} followed by a variable or hop bounds is a traversal (so a bare variable
     * before {@code contains $x} is a traversal over an edge named "contains", as documented).
     */
    private boolean traversalAhead() {
        int k = 1;
        if (peek(k).is(Kind.VARIABLE) && peek(k + 1).is(Kind.COLON)) return true;
        if (peek(k).is(Kind.LT) && peek(k + 1).is(Kind.IDENT) && peek(k + 2).is(Kind.GT)) {
            k += 3;
        } else if ((peek(k).is(Kind.IDENT) && !peek(k).isWord("not")) || peek(k).is(Kind.TYPE_NAME)) {
            // a TYPE_NAME here is a mis-cased edge name: commit so edgeName() can say so
            k += 1;
        } else {
            return false;
        }
        return peek(k).is(Kind.VARIABLE) || peek(k).is(Kind.LBRACE);
    }

    private Ast.Binding binding() {
        Token v = next();
        next(); // ':'
        Token type = peek();
        if (!type.is(Kind.TYPE_NAME))
            throw syntax(type, "expected a node type name (starting with an uppercase letter) after '$" + v.text()
                    + ":', found " + type.describe());
        next();
        List<Ast.PropMatch> matches = new ArrayList<>();
        if (at(Kind.LBRACE)) {
            next();
            do {
                if (at(Kind.RBRACE) && !matches.isEmpty()) break; // trailing comma
                Token prop = peek();
                if (!prop.is(Kind.IDENT)) throw syntax(prop, "expected a property name, found " + prop.describe());
                next();
                expect(Kind.COLON, " after property '" + prop.text() + "'");
                matches.add(new Ast.PropMatch(prop.text(), exprs.matchValue(), prop.pos()));
            } while (at(Kind.COMMA) && next() != null);
            expect(Kind.RBRACE, " to close the property matches of $" + v.text());
        }
        return new Ast.Binding(v.text(), type.text(), matches, v.pos(), type.pos());
    }

    private Ast.Traversal traversal() {
        Token from = next();
        String edgeVar = null;
        Pos edgeVarPos = null;
        if (peek().is(Kind.VARIABLE)) {
            Token ev = next();
            edgeVar = ev.text();
            edgeVarPos = ev.pos();
            expect(Kind.COLON, " after edge variable $" + ev.text());
        }
        boolean undirected = false;
        Token edge;
        if (at(Kind.LT)) {
            next();
            undirected = true;
            edge = edgeName();
            expect(Kind.GT, " to close <" + edge.text());
        } else {
            edge = edgeName();
        }
        Ast.HopBounds hops = null;
        if (at(Kind.LBRACE)) {
            Token open = next();
            long min = parseLong(expect(Kind.INTEGER, " as the minimum hop count"));
            expect(Kind.COMMA, " after the minimum hop count");
            Long max = at(Kind.INTEGER) ? parseLong(next()) : null;
            expect(Kind.RBRACE, " to close the hop bounds");
            hops = new Ast.HopBounds(min, max, open.pos());
        }
        Token to = expect(Kind.VARIABLE, " as the traversal's destination");
        return new Ast.Traversal(from.text(), edgeVar, edge.text(), undirected, hops, to.text(), from.pos(),
                edgeVarPos, edge.pos(), to.pos());
    }

    private Token edgeName() {
        Token t = peek();
        if (t.is(Kind.TYPE_NAME))
            throw syntax(t, "edge names are written with a lowercase initial in queries (e.g. '"
                    + Character.toLowerCase(t.text().charAt(0)) + t.text().substring(1) + "')");
        if (!t.is(Kind.IDENT) || t.isWord("not")) throw syntax(t, "expected an edge name, found " + t.describe());
        return next();
    }
}

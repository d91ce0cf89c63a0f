package dev.omnigraph.engine.schema;

import dev.omnigraph.engine.schema.Ast.AnnotationNode;
import dev.omnigraph.engine.schema.Ast.CArg;
import dev.omnigraph.engine.schema.Ast.CardNode;
import dev.omnigraph.engine.schema.Ast.ConstraintNode;
import dev.omnigraph.engine.schema.Ast.Decl;
import dev.omnigraph.engine.schema.Ast.Kwarg;
import dev.omnigraph.engine.schema.Ast.Lit;
import dev.omnigraph.engine.schema.Ast.LitKind;
import dev.omnigraph.engine.schema.Ast.NameRef;
import dev.omnigraph.engine.schema.Ast.PropDecl;
import dev.omnigraph.engine.schema.Token.Kind;
import dev.omnigraph.engine.schema.Token.Pos;
import dev.omnigraph.storage.error.ParseError;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Recursive-descent parser for {@code .pg} (languages.md §2). It resolves everything that is local to a
 * token (base type names, Blob, vector dimensions, number ranges); cross-declaration rules live in {@link Checker}.
 */
final class Parser {
    static final Set<String> CONSTRAINT_KEYWORDS = Set.of("key", "unique", "index", "range", "check");
    static final long MAX_VECTOR_DIM = Integer.MAX_VALUE;
    static final long MAX_CARD = 0xFFFF_FFFFL; // cardinality bounds are u32

    private enum Site { TYPE_HEADER, PROPERTY }

    private final Lexer lexer;
    private final List<Token> lookahead = new ArrayList<>();

    Parser(Lexer lexer) {
        this.lexer = lexer;
    }

    Ast.SchemaFile parseFile() {
        List<Decl> decls = new ArrayList<>();
        while (true) {
            lexer.subject = "";
            Token t = peek(0);
            if (t.is(Kind.EOF)) return new Ast.SchemaFile(decls);
            if (t.isIdent("interface")) decls.add(parseInterface());
            else if (t.isIdent("node")) decls.add(parseNode());
            else if (t.isIdent("edge")) decls.add(parseEdge());
            else throw error(t, "expected 'interface', 'node' or 'edge', found " + t.describe());
        }
    }

    private Ast.InterfaceDecl parseInterface() {
        advance();
        Token name = expectTypeName("interface name");
        String subject = "interface " + name.text();
        lexer.subject = subject;
        expect(Kind.LBRACE, "'{' to open the body of " + subject);
        List<PropDecl> props = new ArrayList<>();
        while (true) {
            Token t = peek(0);
            if (t.is(Kind.RBRACE)) break;
            if (t.is(Kind.IDENT)) props.add(parseProp(subject));
            else if (t.is(Kind.AT))
                throw error(t, "interface bodies accept only property declarations; put constraints on the implementing nodes");
            else throw memberError(t, subject);
        }
        advance();
        return new Ast.InterfaceDecl(name.text(), name.pos(), props);
    }

    private Ast.NodeDecl parseNode() {
        advance();
        Token name = expectTypeName("node type name");
        String subject = "node " + name.text();
        lexer.subject = subject;
        List<AnnotationNode> annotations = parseAnnotations(Site.TYPE_HEADER);
        List<NameRef> implementsTypes = new ArrayList<>();
        if (peek(0).isIdent("implements")) {
            advance();
            do {
                Token iface = expectTypeName("interface name");
                implementsTypes.add(new NameRef(iface.text(), iface.pos()));
            } while (acceptIf(Kind.COMMA));
        }
        expect(Kind.LBRACE, "'{' to open the body of " + subject);
        List<PropDecl> props = new ArrayList<>();
        List<ConstraintNode> constraints = new ArrayList<>();
        parseBody(subject, props, constraints);
        return new Ast.NodeDecl(name.text(), name.pos(), annotations, implementsTypes, props, constraints);
    }

    private Ast.EdgeDecl parseEdge() {
        advance();
        Token name = expectTypeName("edge type name");
        String subject = "edge " + name.text();
        lexer.subject = subject;
        expect(Kind.COLON, "':' after the edge name");
        Token from = expectTypeName("source node type");
        expect(Kind.ARROW, "'->' between the endpoint types");
        Token to = expectTypeName("target node type");
        CardNode card = null;
        if (peek(0).is(Kind.AT) && peek(1).isIdent("card")) card = parseCard();
        List<AnnotationNode> annotations = parseAnnotations(Site.TYPE_HEADER);
        List<PropDecl> props = new ArrayList<>();
        List<ConstraintNode> constraints = new ArrayList<>();
        if (acceptIf(Kind.LBRACE)) parseBody(subject, props, constraints);
        return new Ast.EdgeDecl(name.text(), name.pos(), new NameRef(from.text(), from.pos()),
                new NameRef(to.text(), to.pos()), card, annotations, props, constraints);
    }

    /** Members of a node or edge body, up to and including the closing brace. */
    private void parseBody(String subject, List<PropDecl> props, List<ConstraintNode> constraints) {
        while (true) {
            Token t = peek(0);
            if (t.is(Kind.RBRACE)) {
                advance();
                return;
            }
            if (t.is(Kind.IDENT)) {
                props.add(parseProp(subject));
            } else if (t.is(Kind.AT)) {
                Token kw = peek(1);
                if (!(kw.is(Kind.IDENT) && CONSTRAINT_KEYWORDS.contains(kw.text()) && peek(2).is(Kind.LPAREN))) {
                    throw error(t, "expected a body constraint @key/@unique/@index/@range/@check(...); "
                            + "type annotations go in the header, before '{'");
                }
                constraints.add(parseConstraint());
            } else {
                throw memberError(t, subject);
            }
        }
    }

    private ParseError memberError(Token t, String subject) {
        if (t.is(Kind.EOF)) return error(t, "expected '}' to close " + subject + ", found end of input");
        if (t.is(Kind.TYPE_NAME))
            return error(t, "property names must start with a lowercase letter or '_', found " + t.describe());
        return error(t, "expected a property declaration or '}', found " + t.describe());
    }

    private PropDecl parseProp(String ownerSubject) {
        Token name = advance();
        lexer.subject = ownerSubject + "." + name.text();
        expect(Kind.COLON, "':' after property name '" + name.text() + "'");
        Token typeStart = peek(0);
        PropertyType type = parseCoreType();
        boolean nullable = acceptIf(Kind.QUESTION);
        List<AnnotationNode> annotations = parseAnnotations(Site.PROPERTY);
        lexer.subject = ownerSubject;
        return new PropDecl(name.text(), name.pos(), type, nullable, typeStart.pos(), annotations);
    }

    private PropertyType parseCoreType() {
        Token t = peek(0);
        if (t.is(Kind.LBRACKET)) {
            advance();
            Token element = peek(0);
            if (!element.is(Kind.TYPE_NAME) || element.text().equals("Vector"))
                throw error(element, "list elements must be a base type (String, Bool, I32, I64, U32, U64, F32, F64, Date, DateTime), found " + element.describe());
            advance();
            ScalarKind kind = baseType(element);
            if (kind == ScalarKind.BLOB) throw error(element, "lists of Blob are not supported; declare one Blob property per value");
            expect(Kind.RBRACKET, "']' to close the list type");
            return new PropertyType.ListOf(kind);
        }
        if (t.isIdent("enum")) {
            advance();
            expect(Kind.LPAREN, "'(' after enum");
            // The enum-value rule is atomic and admits '-' and leading digits, so scan it in its own mode.
            if (!lookahead.isEmpty()) throw new IllegalStateException("lookahead across an enum value");
            List<String> values = new ArrayList<>();
            values.add(lexer.nextEnumValue().text());
            while (acceptIf(Kind.COMMA)) values.add(lexer.nextEnumValue().text());
            expect(Kind.RPAREN, "',' or ')' in the enum value list");
            return new PropertyType.EnumOf(values);
        }
        if (t.is(Kind.TYPE_NAME) && t.text().equals("Vector")) {
            advance();
            expect(Kind.LPAREN, "'(' after Vector");
            Token dim = expect(Kind.INTEGER, "the vector dimension (an integer)");
            long value = parseUnsigned(dim, MAX_VECTOR_DIM);
            if (value < 1 || value > MAX_VECTOR_DIM)
                throw error(dim, "vector dimension must be between 1 and " + MAX_VECTOR_DIM + ", found " + dim.text());
            expect(Kind.RPAREN, "')' after the vector dimension");
            return new PropertyType.VectorOf((int) value);
        }
        if (t.is(Kind.TYPE_NAME)) {
            advance();
            return new PropertyType.Scalar(baseType(t));
        }
        throw error(t, "expected a property type, found " + t.describe());
    }

    private ScalarKind baseType(Token t) {
        return ScalarKind.fromSpelling(t.text()).orElseThrow(() -> error(t,
                "unknown property type '" + t.text() + "' (expected String, Bool, I32, I64, U32, U64, F32, F64, "
                        + "Date, DateTime, Vector(n), [T] or enum(...))"));
    }

    private CardNode parseCard() {
        Token at = advance();
        advance(); // "card"
        expect(Kind.LPAREN, "'(' after @card");
        Token min = expect(Kind.INTEGER, "the minimum cardinality (a non-negative integer)");
        long minValue = parseUnsigned(min, MAX_CARD);
        expect(Kind.DOTDOT, "'..' in @card(min..max)");
        Long maxValue = null;
        Pos maxPos = null;
        if (peek(0).is(Kind.INTEGER)) {
            Token max = advance();
            maxValue = parseUnsigned(max, MAX_CARD);
            maxPos = max.pos();
        }
        expect(Kind.RPAREN, "')' to close @card");
        return new CardNode(at.pos(), minValue, min.pos(), maxValue, maxPos);
    }

    private long parseUnsigned(Token t, long limit) {
        try {
            long v = Long.parseLong(t.text());
            if (v <= limit) return v;
        } catch (NumberFormatException ignored) {
            // falls through to the range error
        }
        throw error(t, "integer " + t.text() + " is out of range (at most " + limit + ")");
    }

    private List<AnnotationNode> parseAnnotations(Site site) {
        List<AnnotationNode> out = new ArrayList<>();
        while (peek(0).is(Kind.AT)) {
            Token at = peek(0);
            Token name = peek(1);
            if (!name.is(Kind.IDENT)) throw error(name, "expected an annotation name after '@', found " + name.describe());
            boolean withArgs = peek(2).is(Kind.LPAREN);
            if (CONSTRAINT_KEYWORDS.contains(name.text()) && withArgs) {
                if (site == Site.PROPERTY) return out; // a body constraint follows this property
                throw error(at, "@" + name.text() + "(...) is a body constraint; write it inside the type's { } body");
            }
            if (name.text().equals("card")) {
                throw error(at, "@card is only allowed once, directly after an edge's endpoint types");
            }
            advance();
            advance();
            Lit value = null;
            List<Kwarg> kwargs = new ArrayList<>();
            if (acceptIf(Kind.LPAREN)) {
                value = parseAnnotationArg();
                while (acceptIf(Kind.COMMA)) {
                    Token key = expect(Kind.IDENT, "a keyword argument name");
                    expect(Kind.EQUALS, "'=' after keyword argument '" + key.text() + "'");
                    kwargs.add(new Kwarg(key.text(), key.pos(), parseLiteral()));
                }
                expect(Kind.RPAREN, "',' or ')' in the arguments of @" + name.text());
            }
            out.add(new AnnotationNode(name.text(), at.pos(), value, kwargs));
        }
        return out;
    }

    private Lit parseAnnotationArg() {
        Token t = peek(0);
        if (t.is(Kind.IDENT) && !t.text().equals("true") && !t.text().equals("false")) {
            advance();
            return new Lit(LitKind.IDENT, t.text(), t.pos());
        }
        return parseLiteral();
    }

    private Lit parseLiteral() {
        Token t = peek(0);
        LitKind kind = switch (t.kind()) {
            case STRING -> LitKind.STRING;
            case INTEGER -> LitKind.INTEGER;
            case FLOAT -> LitKind.FLOAT;
            case IDENT -> t.text().equals("true") || t.text().equals("false") ? LitKind.BOOL : null;
            default -> null;
        };
        if (kind == null) throw error(t, "expected a literal (string, number, true or false), found " + t.describe());
        advance();
        return new Lit(kind, t.text(), t.pos());
    }

    private ConstraintNode parseConstraint() {
        Token at = advance();
        Token keyword = advance();
        advance(); // "("
        List<CArg> args = new ArrayList<>();
        do {
            args.add(parseConstraintArg());
        } while (acceptIf(Kind.COMMA));
        expect(Kind.RPAREN, "',' or ')' in the arguments of @" + keyword.text());
        return new ConstraintNode(keyword.text(), at.pos(), args);
    }

    private CArg parseConstraintArg() {
        Token t = peek(0);
        if (t.is(Kind.DOTDOT)) {
            advance();
            return new Ast.RangeArg(null, parseNumber().bound(), t.pos());
        }
        if (t.is(Kind.MINUS) || t.is(Kind.INTEGER) || t.is(Kind.FLOAT)) {
            Num lo = parseNumber();
            if (acceptIf(Kind.DOTDOT)) {
                Token next = peek(0);
                RangeBound hi = next.is(Kind.MINUS) || next.is(Kind.INTEGER) || next.is(Kind.FLOAT)
                        ? parseNumber().bound() : null;
                return new Ast.RangeArg(lo.bound(), hi, t.pos());
            }
            LitKind kind = lo.bound() instanceof RangeBound.IntBound ? LitKind.INTEGER : LitKind.FLOAT;
            return new Ast.LitArg(new Lit(kind, lo.text(), t.pos()));
        }
        if (t.is(Kind.STRING)) return new Ast.LitArg(parseLiteral());
        if (t.is(Kind.IDENT)) {
            if (t.text().equals("true") || t.text().equals("false")) return new Ast.LitArg(parseLiteral());
            advance();
            return new Ast.NameArg(t.text(), t.pos());
        }
        throw error(t, "expected a property name, literal or range, found " + t.describe());
    }

    private record Num(RangeBound bound, String text) {}

    /** signed_integer | signed_float: an optional '-' directly followed by the number. */
    private Num parseNumber() {
        Token first = peek(0);
        boolean negative = acceptIf(Kind.MINUS);
        Token t = peek(0);
        if (!t.is(Kind.INTEGER) && !t.is(Kind.FLOAT)) throw error(t, "expected a number, found " + t.describe());
        if (negative && (t.line() != first.line() || t.column() != first.column() + 1))
            throw error(first, "a '-' sign must be written directly before its number");
        advance();
        String text = (negative ? "-" : "") + t.text();
        if (t.is(Kind.INTEGER)) {
            try {
                return new Num(new RangeBound.IntBound(Long.parseLong(text)), text);
            } catch (NumberFormatException e) {
                throw error(t, "integer " + text + " does not fit in a signed 64-bit bound");
            }
        }
        double value = Double.parseDouble(text);
        if (!Double.isFinite(value)) throw error(t, "float " + text + " is out of range");
        return new Num(new RangeBound.FloatBound(value), text);
    }

    // ---- token plumbing ----

    private Token peek(int ahead) {
        while (lookahead.size() <= ahead) lookahead.add(lexer.next());
        return lookahead.get(ahead);
    }

    private Token advance() {
        Token t = peek(0);
        lookahead.remove(0);
        return t;
    }

    private boolean acceptIf(Kind kind) {
        if (!peek(0).is(kind)) return false;
        advance();
        return true;
    }

    private Token expect(Kind kind, String what) {
        Token t = peek(0);
        if (!t.is(kind)) throw error(t, "expected " + what + ", found " + t.describe());
        return advance();
    }

    private Token expectTypeName(String what) {
        Token t = peek(0);
        if (t.is(Kind.IDENT)) throw error(t, "expected " + what + " (type names start with an uppercase letter), found " + t.describe());
        return expect(Kind.TYPE_NAME, what);
    }

    private ParseError error(Token t, String message) {
        return lexer.error(t.line(), t.column(), message);
    }
}

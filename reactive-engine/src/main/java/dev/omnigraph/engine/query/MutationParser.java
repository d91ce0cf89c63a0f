package dev.omnigraph.engine.query;

import dev.omnigraph.engine.query.Token.Kind;
import java.util.ArrayList;
import java.util.List;

/** {@code insert}, {@code update} and {@code delete} statements; driven by {@link Parser}. */
final class MutationParser {
    private final Parser p;

    MutationParser(Parser p) {
        this.p = p;
    }

    Ast.Statement statement() {
        Token kw = p.next();
        Token type = p.peek();
        if (!type.is(Kind.TYPE_NAME))
            throw p.syntax(type, "expected a node or edge type name (starting with an uppercase letter) after '"
                    + kw.text() + "', found " + type.describe());
        p.next();
        switch (kw.text()) {
            case "insert" -> {
                List<Ast.Assignment> assignments = assignments(type);
                return new Ast.Insert(type.text(), assignments, kw.pos(), type.pos());
            }
            case "update" -> {
                p.expectWord("set", " after 'update " + type.text() + "'");
                List<Ast.Assignment> assignments = assignments(type);
                return new Ast.Update(type.text(), assignments, where(), kw.pos(), type.pos());
            }
            default -> {
                return new Ast.Delete(type.text(), where(), kw.pos(), type.pos());
            }
        }
    }

    /** {@code { prop: value [,] … }}; zero assignments parse, the checker rejects them (T10). */
    private List<Ast.Assignment> assignments(Token type) {
        p.expect(Kind.LBRACE, " to open the assignments of " + type.text());
        List<Ast.Assignment> out = new ArrayList<>();
        while (!p.at(Kind.RBRACE)) {
            Token prop = p.peek();
            if (!prop.is(Kind.IDENT))
                throw p.syntax(prop, "expected a property name or '}', found " + prop.describe());
            p.next();
            p.expect(Kind.COLON, " after property '" + prop.text() + "'");
            out.add(new Ast.Assignment(prop.text(), p.exprs.matchValue(), prop.pos()));
            if (p.at(Kind.COMMA)) p.next();
        }
        p.next();
        return out;
    }

    private Ast.Where where() {
        p.expectWord("where", "");
        Token prop = p.peek();
        if (!prop.is(Kind.IDENT)) throw p.syntax(prop, "expected a property name after 'where', found " + prop.describe());
        p.next();
        Token op = p.peek();
        CompareOp cmp = ExprParser.compareOp(op);
        if (cmp == null || cmp == CompareOp.CONTAINS || cmp == CompareOp.STARTS_WITH)
            throw p.syntax(op, "expected a comparison operator (= != < <= > >=) after '" + prop.text()
                    + "', found " + op.describe());
        p.next();
        return new Ast.Where(prop.text(), cmp, p.exprs.matchValue(), prop.pos(), op.pos());
    }
}

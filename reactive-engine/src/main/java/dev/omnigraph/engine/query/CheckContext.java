package dev.omnigraph.engine.query;

import dev.omnigraph.engine.query.Ast.Pos;
import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import dev.omnigraph.storage.error.ParseError;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** What both checkers share: the catalog, the query being checked, positioned coded errors and constants. */
final class CheckContext {
    final Catalog catalog;
    final QueryDecl decl;
    /** The declared parameters by name: looked up once per reference, so a linear search would be quadratic. */
    private final Map<String, ParamDecl> params = new HashMap<>();

    CheckContext(Catalog catalog, QueryDecl decl) {
        this.catalog = catalog;
        this.decl = decl;
        for (ParamDecl p : decl.params()) params.putIfAbsent(p.name(), p);
    }

    ParseError error(Pos at, String code, String message) {
        return new ParseError(Parser.SOURCE, at.line(), at.column(), decl.name(), code + ": " + message);
    }

    Optional<ParamDecl> param(String name) {
        return Optional.ofNullable(params.get(name));
    }

    /** Edge types are written lower-initial in queries, so they are looked up ignoring case. */
    Optional<EdgeTable> edgeIgnoringCase(String name) {
        Optional<EdgeTable> exact = catalog.edge(name);
        if (exact.isPresent()) return exact;
        for (Map.Entry<String, EdgeTable> e : catalog.edges().entrySet()) {
            if (e.getKey().equalsIgnoreCase(name)) return Optional.of(e.getValue());
        }
        return Optional.empty();
    }

    Optional<NodeTable> nodeIgnoringCase(String name) {
        for (Map.Entry<String, NodeTable> e : catalog.nodes().entrySet()) {
            if (e.getKey().equalsIgnoreCase(name)) return Optional.of(e.getValue());
        }
        return Optional.empty();
    }

    /**
     * A binding match value, assignment value or predicate value against a slot of type {@code target}:
     * a literal becomes its Java value of that type (T3 when it does not fit), a parameter must be declared
     * ({@code undeclaredCode} otherwise) and assignable (T7), {@code now()} only meets a DateTime (T7).
     *
     * @param what names the slot in messages, e.g. "Person.age"
     */
    ValueExpr constant(Ast.Expr value, PropertyType target, String what, String undeclaredCode) {
        if (value instanceof Ast.Literal lit) {
            try {
                return new ValueExpr.Literal(Types.coerce(lit, target));
            } catch (Values.Mismatch m) {
                throw error(m.pos != null ? m.pos : lit.pos(), "T3", "value for " + what + ": " + m.getMessage());
            }
        }
        if (value instanceof Ast.Now now) {
            if (!(target instanceof PropertyType.Scalar s) || s.kind() != ScalarKind.DATETIME)
                throw error(now.pos(), "T7", "now() is a DateTime and cannot be used for " + what + " (" + target.spelling() + ")");
            return new ValueExpr.Now();
        }
        Ast.Var v = (Ast.Var) value;
        ParamDecl p = param(v.name()).orElseThrow(() -> error(v.pos(), undeclaredCode,
                "$" + v.name() + " is not a declared parameter of query " + decl.name()
                        + (decl.params().isEmpty() ? "" : " (declared: " + paramList() + ")")));
        if (!Types.assignable(p.type(), target))
            throw error(v.pos(), "T7", "param $" + v.name() + " is " + p.spelling() + " but " + what + " is " + target.spelling());
        return new ValueExpr.Param(v.name());
    }

    String paramList() {
        return String.join(", ", decl.params().stream().map(p -> "$" + p.name()).toList());
    }
}

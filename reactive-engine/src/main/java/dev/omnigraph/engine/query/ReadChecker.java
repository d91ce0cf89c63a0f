package dev.omnigraph.engine.query;

import dev.omnigraph.engine.query.Ast.Pos;
import dev.omnigraph.engine.query.ReadPlan.Constant;
import dev.omnigraph.engine.query.ReadPlan.EntityRef;
import dev.omnigraph.engine.query.ReadPlan.Filter;
import dev.omnigraph.engine.query.ReadPlan.Operand;
import dev.omnigraph.engine.query.ReadPlan.PropertyRef;
import dev.omnigraph.engine.query.ReadPlan.ResultType;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.Property;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Type-checks a read body's match block into a {@link ReadPlan.MatchPlan} and resolves operands; the return,
 * order and limit parts are {@link ProjectionChecker}'s. Within one scope, bindings are checked first, then
 * traversals, filters and negations, so a clause may use a variable bound by a later clause of the same block.
 */
final class ReadChecker {
    final CheckContext cx;
    final SearchChecker searches;
    private int anonymous;

    ReadChecker(CheckContext cx) {
        this.cx = cx;
        this.searches = new SearchChecker(this);
    }

    ReadPlan check(Ast.ReadBody body) {
        Scope root = new Scope(null);
        clauses(root, body.match());
        return new ProjectionChecker(this, root).check(body, root.build());
    }

    /** One block's variables and the plan parts it collects. */
    static final class Scope {
        final Scope parent;
        final Map<String, CatalogTable> vars = new LinkedHashMap<>();
        final Map<String, NodeBuilder> nodes = new LinkedHashMap<>();
        final List<ReadPlan.Traversal> traversals = new ArrayList<>();
        final List<Filter> filters = new ArrayList<>();
        final List<ReadPlan.Negation> negations = new ArrayList<>();
        final List<TextFilter> textFilters = new ArrayList<>();
        /** Variables of enclosing scopes this one references: a negation's correlation. */
        final Set<String> outerUsed = new LinkedHashSet<>();

        Scope(Scope parent) {
            this.parent = parent;
        }

        /** The table a variable is bound to (NodeTable or EdgeTable), searching enclosing scopes. */
        CatalogTable lookup(String name) {
            CatalogTable t = vars.get(name);
            if (t != null || parent == null) return t;
            t = parent.lookup(name);
            if (t != null) outerUsed.add(name);
            return t;
        }

        ReadPlan.MatchPlan build() {
            return new ReadPlan.MatchPlan(nodes.values().stream().map(NodeBuilder::build).toList(), traversals,
                    filters, negations, textFilters);
        }
    }

    private record NodeBuilder(String name, NodeTable table, List<ReadPlan.PropertyMatch> matches, boolean anonymous) {
        ReadPlan.NodeVar build() {
            return new ReadPlan.NodeVar(name, table, matches, anonymous);
        }
    }

    // ---- clauses ---------------------------------------------------------------------------------------

    private void clauses(Scope scope, List<Ast.Clause> clauses) {
        for (Ast.Clause c : clauses) if (c instanceof Ast.Binding b) binding(scope, b);
        for (Ast.Clause c : clauses) if (c instanceof Ast.Traversal t) traversal(scope, t);
        for (Ast.Clause c : clauses) if (c instanceof Ast.Filter f) filter(scope, f);
        for (Ast.Clause c : clauses) if (c instanceof Ast.TextClause t) scope.textFilters.add(searches.textClause(scope, t));
        for (Ast.Clause c : clauses) {
            if (!(c instanceof Ast.Negation n)) continue;
            Scope inner = new Scope(scope);
            clauses(inner, n.clauses());
            if (inner.outerUsed.isEmpty())
                throw cx.error(n.pos(), "T9", "a not { … } block must reference at least one variable bound outside it");
            scope.negations.add(new ReadPlan.Negation(inner.build(), List.copyOf(inner.outerUsed)));
        }
    }

    private String declare(Scope scope, String name, NodeTable table, Pos pos) {
        if (name.equals("_")) {
            name = "_#" + (++anonymous);
            scope.nodes.put(name, new NodeBuilder(name, table, new ArrayList<>(), true));
            return name;
        }
        refuseParamName(name, pos);
        scope.vars.put(name, table);
        scope.nodes.put(name, new NodeBuilder(name, table, new ArrayList<>(), false));
        return name;
    }

    private void refuseParamName(String name, Pos pos) {
        if (cx.param(name).isPresent())
            throw cx.error(pos, "T6", "$" + name + " is a query parameter; a match variable needs another name");
    }

    private void binding(Scope scope, Ast.Binding b) {
        NodeTable table = cx.catalog.node(b.typeName()).orElseThrow(() -> {
            if (cx.edgeIgnoringCase(b.typeName()).isPresent())
                return cx.error(b.typePos(), "T1", "'" + b.typeName() + "' is an edge type; bind node types and traverse edges");
            return cx.error(b.typePos(), "T1", "unknown node type '" + b.typeName() + "'"
                    + cx.nodeIgnoringCase(b.typeName()).map(n -> " (did you mean '" + n.typeName() + "'?)").orElse(""));
        });
        String name = b.variable();
        CatalogTable existing = name.equals("_") ? null : scope.lookup(name);
        if (existing instanceof EdgeTable e)
            throw cx.error(b.pos(), "T23", "$" + name + " is an edge binding of " + e.typeName() + "; it cannot be rebound as node type " + b.typeName());
        if (existing != null && existing != table)
            throw cx.error(b.typePos(), "T5", "$" + name + " is already bound to " + existing.typeName()
                    + "; it cannot be rebound as " + b.typeName());
        if (existing == null) name = declare(scope, name, table, b.pos());
        NodeBuilder local = scope.nodes.get(name);
        for (Ast.PropMatch pm : b.matches()) {
            Property prop = nodeProperty(table, pm.property())
                    .orElseThrow(() -> cx.error(pm.pos(), "T2", "unknown property '" + pm.property() + "' on node " + table.typeName()));
            String what = table.typeName() + "." + prop.name();
            if (prop.type() instanceof PropertyType.VectorOf)
                throw cx.error(pm.pos(), "T3", "vector property " + what + " cannot be matched");
            if (Types.isBlob(prop.type()))
                throw cx.error(pm.pos(), "T3", "Blob property " + what + " cannot be matched");
            boolean membership = prop.type() instanceof PropertyType.ListOf;
            PropertyType target = membership ? Types.element((PropertyType.ListOf) prop.type()) : prop.type();
            if (membership && pm.value() instanceof Ast.ListLit)
                throw cx.error(pm.value().pos(), "T3", "list equality is not supported for " + what
                        + "; match one element to test membership");
            if (pm.value() instanceof Ast.Var v && !v.name().equals("_") && scope.lookup(v.name()) != null)
                throw cx.error(v.pos(), "T7", "binding values must be literals, parameters or now(); $" + v.name() + " is a match variable");
            if (pm.value() instanceof Ast.Literal lit && !membership && !Types.comparisonTarget(lit, target).equals(target)) {
                // A fractional literal against an integer property compares by value: the query runs, matches nothing.
                scope.filters.add(new Filter(new PropertyRef(name, prop, false), CompareOp.EQ,
                        new Constant(cx.constant(lit, Types.F64, what, "T6"), Types.F64, false)));
                continue;
            }
            ValueExpr value = cx.constant(pm.value(), target, what, "T6");
            if (local != null) {
                local.matches().add(new ReadPlan.PropertyMatch(prop, value, membership));
            } else { // re-binding an outer variable inside not { }: the match becomes a filter of this scope
                scope.filters.add(new Filter(new PropertyRef(name, prop, false), membership ? CompareOp.CONTAINS : CompareOp.EQ,
                        new Constant(value, target, isOptionalParam(value))));
            }
        }
    }

    private boolean isOptionalParam(ValueExpr v) {
        return v instanceof ValueExpr.Param p && cx.param(p.name()).map(ParamDecl::optional).orElse(false);
    }

    private void traversal(Scope scope, Ast.Traversal t) {
        EdgeTable edge = cx.edgeIgnoringCase(t.edgeName()).orElseThrow(() -> cx.error(t.edgePos(), "T4",
                "unknown edge type '" + t.edgeName() + "'" + (cx.nodeIgnoringCase(t.edgeName()).isPresent()
                        ? " ('" + cx.nodeIgnoringCase(t.edgeName()).get().typeName() + "' is a node type)" : "")));
        int min = 1;
        int max = 1;
        if (t.hops() != null) {
            Ast.HopBounds h = t.hops();
            if (h.max() == null)
                throw cx.error(h.pos(), "T15", "unbounded traversal is disabled; write {min, max}");
            if (h.min() < 1) throw cx.error(h.pos(), "T15", "hop bounds need min >= 1, got " + h.min());
            if (h.max() < h.min())
                throw cx.error(h.pos(), "T15", "hop bounds need max >= min, got {" + h.min() + ", " + h.max() + "}");
            if (h.max() > Integer.MAX_VALUE) throw cx.error(h.pos(), "T15", "hop bound " + h.max() + " is too large");
            min = (int) h.min();
            max = h.max().intValue();
        }
        String from = edge.type().fromType();
        String to = edge.type().toType();
        if (t.undirected() && !from.equals(to))
            throw cx.error(t.edgePos(), "T22", "undirected <" + t.edgeName() + "> needs an edge whose endpoint types are equal, but "
                    + edge.typeName() + " is " + from + " -> " + to + "; use the directed form");
        String edgeVar = t.edgeVariable();
        if (edgeVar != null) {
            if (t.hops() != null)
                throw cx.error(t.edgeVariablePos(), "T23", "edge binding $" + edgeVar
                        + " cannot be combined with hop bounds (a multi-hop path has no single edge)");
            if (edgeVar.equals("_")) {
                edgeVar = null;
            } else {
                if (edgeVar.equals(t.from()) || edgeVar.equals(t.to()))
                    throw cx.error(t.edgeVariablePos(), "T23", "edge binding $" + edgeVar + " reuses an endpoint's name");
                if (scope.lookup(edgeVar) != null)
                    throw cx.error(t.edgeVariablePos(), "T23", "$" + edgeVar + " is already bound; an edge binding needs a fresh name");
                refuseParamName(edgeVar, t.edgeVariablePos());
            }
        }
        String fromVar = endpoint(scope, t.from(), t.pos(), from, edge, "source");
        String toVar = endpoint(scope, t.to(), t.toPos(), to, edge, "destination");
        if (edgeVar != null) scope.vars.put(edgeVar, edge);
        scope.traversals.add(new ReadPlan.Traversal(fromVar, edge, toVar,
                t.undirected() ? ReadPlan.Direction.BOTH : ReadPlan.Direction.OUT, min, max, edgeVar));
    }

    private String endpoint(Scope scope, String name, Pos pos, String typeName, EdgeTable edge, String role) {
        NodeTable expected = cx.catalog.node(typeName).orElseThrow();
        if (name.equals("_")) return declare(scope, name, expected, pos);
        CatalogTable existing = scope.lookup(name);
        if (existing instanceof EdgeTable)
            throw cx.error(pos, "T23", "edge binding $" + name + " cannot be a traversal endpoint");
        if (existing == null) return declare(scope, name, expected, pos);
        if (existing != expected)
            throw cx.error(pos, "T5", "$" + name + " is bound to " + existing.typeName() + ", but " + edge.typeName()
                    + " (" + edge.type().fromType() + " -> " + edge.type().toType() + ") needs " + typeName + " as its " + role);
        return name;
    }

    private void filter(Scope scope, Ast.Filter f) {
        Operand l = operand(scope, f.left(), false);
        Operand r = operand(scope, f.right(), false);
        refuseBareEdge(l, f.left());
        refuseBareEdge(r, f.right());
        refuseBlob(l, f.left());
        refuseBlob(r, f.right());
        if (l == null && r == null) {
            l = natural((Ast.Literal) f.left());
            r = natural((Ast.Literal) f.right());
        } else if (l == null) {
            l = literalAgainst((Ast.Literal) f.left(), r, f.op(), true);
        } else if (r == null) {
            r = literalAgainst((Ast.Literal) f.right(), l, f.op(), false);
        }
        compare(l, f.op(), r, f.opPos());
        scope.filters.add(new Filter(l, f.op(), r));
    }

    /** T11: Blob bytes are only read through the blob API, never compared. */
    private void refuseBlob(Operand o, Ast.Expr e) {
        if (o instanceof PropertyRef ref && Types.isBlob(ref.property().type()))
            throw cx.error(e.pos(), "T11", "Blob property " + ref.variable() + "." + ref.property().name()
                    + " cannot be used in a filter");
    }

    private void refuseBareEdge(Operand o, Ast.Expr e) {
        if (o instanceof EntityRef ref && ref.table() instanceof EdgeTable)
            throw cx.error(e.pos(), "T23", "edge binding $" + ref.variable() + " cannot be used bare; use one of its properties ($"
                    + ref.variable() + ".prop)");
    }

    // ---- operands --------------------------------------------------------------------------------------

    /** A resolved operand, or null for a literal (whose type depends on the other operand). */
    Operand operand(Scope scope, Ast.Expr e, boolean inReturn) {
        if (e instanceof Ast.Literal) return null;
        if (e instanceof Ast.PropAccess pa) return propertyRef(scope, pa);
        if (e instanceof Ast.Now) return new Constant(new ValueExpr.Now(), Types.DATETIME, false);
        if (e instanceof Ast.Var v) {
            if (v.name().equals("_")) throw cx.error(v.pos(), "T6", "the anonymous variable $_ cannot be referenced");
            CatalogTable t = scope.lookup(v.name());
            if (t != null) return new EntityRef(v.name(), t);
            Optional<ParamDecl> p = cx.param(v.name());
            if (p.isPresent()) return new Constant(new ValueExpr.Param(v.name()), p.get().type(), p.get().optional());
            throw cx.error(v.pos(), "T6", "unbound variable $" + v.name());
        }
        if (e instanceof Ast.SearchCall c)
            throw cx.error(c.pos(), SearchChecker.code(c.function()), c.function() + "(…) cannot be compared; "
                    + (c.function().equals("search") || c.function().equals("fuzzy") || c.function().equals("match_text")
                    ? "write it as a match clause of its own" : "rankings are only allowed in return and order"));
        if (e instanceof Ast.AliasRef a)
            throw cx.error(a.pos(), "T6", "unknown name '" + a.name() + "'" + (inReturn ? "" : " (return aliases can only be used in order)"));
        throw cx.error(e.pos(), "T9", "aggregates are only allowed in return and order");
    }

    PropertyRef propertyRef(Scope scope, Ast.PropAccess pa) {
        if (pa.variable().equals("_")) throw cx.error(pa.pos(), "T6", "the anonymous variable $_ cannot be referenced");
        CatalogTable t = scope.lookup(pa.variable());
        if (t == null) {
            String hint = cx.param(pa.variable()).isPresent() ? " ($" + pa.variable() + " is a parameter, not a match variable)" : "";
            throw cx.error(pa.pos(), "T6", "unbound variable $" + pa.variable() + hint);
        }
        Optional<Property> prop = t instanceof NodeTable n ? nodeProperty(n, pa.property()) : edgeProperty((EdgeTable) t, pa.property());
        return new PropertyRef(pa.variable(), prop.orElseThrow(() -> cx.error(pa.propertyPos(), "T6", "unknown property '"
                + pa.property() + "' on " + (t instanceof NodeTable ? "node " : "edge ") + t.typeName())), t instanceof EdgeTable);
    }

    /** Declared properties plus the implicit {@code id}, as a non-null String. */
    static Optional<Property> nodeProperty(NodeTable t, String name) {
        if (name.equals("id")) return Optional.of(new Property("id", Types.STRING, false));
        return t.type().property(name);
    }

    /** Declared properties plus the implicit {@code id}, {@code src} and {@code dst}. */
    static Optional<Property> edgeProperty(EdgeTable t, String name) {
        if (name.equals("id") || name.equals("src") || name.equals("dst"))
            return Optional.of(new Property(name, Types.STRING, false));
        return t.type().property(name);
    }

    Constant natural(Ast.Literal lit) {
        try {
            PropertyType type = Types.naturalType(lit);
            return new Constant(new ValueExpr.Literal(Types.coerce(lit, type)), type, false);
        } catch (Values.Mismatch m) {
            throw cx.error(m.pos != null ? m.pos : lit.pos(), "T3", m.getMessage());
        }
    }

    /** Gives a literal operand the type that suits the other operand and the operator. */
    private Operand literalAgainst(Ast.Literal lit, Operand other, CompareOp op, boolean literalIsLeft) {
        if (!(other.type() instanceof ResultType.Value v)) return natural(lit);
        PropertyType t = v.type();
        PropertyType target;
        if (op == CompareOp.STARTS_WITH) {
            target = Types.STRING;
        } else if (op == CompareOp.CONTAINS && literalIsLeft) {
            ScalarKind k = Types.isStringLike(t) ? ScalarKind.STRING : Types.scalarKind(t);
            target = lit instanceof Ast.ListLit && k != null ? new PropertyType.ListOf(k) : null;
        } else if (op == CompareOp.CONTAINS) {
            target = t instanceof PropertyType.ListOf l ? Types.element(l) : Types.isStringLike(t) ? Types.STRING : null;
        } else if (Types.isCollection(t)) {
            target = null;
        } else {
            target = Types.comparisonTarget(lit, t);
        }
        if (target == null) return natural(lit);
        try {
            return new Constant(new ValueExpr.Literal(Types.coerce(lit, target)), target, false);
        } catch (Values.Mismatch m) {
            if (Types.otherFamily(lit, t)) { // as upstream: an operand type mismatch is T7, like $p.age = $p.name
                String family = Types.naturalType(lit).spelling();
                throw cx.error(lit.pos(), "T7", "cannot compare " + (literalIsLeft ? family + " " + op.symbol() + " " + t.spelling()
                        : t.spelling() + " " + op.symbol() + " " + family) + " (" + Types.describe(lit) + ")");
            }
            throw cx.error(m.pos != null ? m.pos : lit.pos(), "T3", "cannot compare " + Types.spell(t, v.nullable()) + " with " + Types.describe(lit) + ": " + m.getMessage());
        }
    }

    private void compare(Operand l, CompareOp op, Operand r, Pos at) {
        if (!(l.type() instanceof ResultType.Value lv)) throw cx.error(at, "T7", entityMessage(l));
        if (!(r.type() instanceof ResultType.Value rv)) throw cx.error(at, "T7", entityMessage(r));
        PropertyType lt = lv.type();
        PropertyType rt = rv.type();
        String pair = lt.spelling() + " " + op.symbol() + " " + rt.spelling();
        switch (op) {
            case CONTAINS -> {
                if (lt instanceof PropertyType.ListOf list) {
                    if (Types.isCollection(rt))
                        throw cx.error(at, "T7", "contains needs a single element on the right, got " + pair);
                    if (!Types.comparable(Types.element(list), rt))
                        throw cx.error(at, "T7", "cannot test membership of " + rt.spelling() + " in " + lt.spelling());
                } else if (Types.isStringLike(lt)) {
                    if (!Types.isStringLike(rt)) throw cx.error(at, "T7", "substring contains needs a String on the right, got " + pair);
                } else {
                    throw cx.error(at, "T7", "contains needs a list (membership) or a String (substring) on the left, got " + pair);
                }
            }
            case STARTS_WITH -> {
                if (!Types.isStringLike(lt) || !Types.isStringLike(rt))
                    throw cx.error(at, "T7", "starts_with needs String operands, got " + pair);
            }
            default -> {
                if (Types.isCollection(lt) || Types.isCollection(rt))
                    throw cx.error(at, "T7", "list and vector comparisons are not supported (" + pair + "); use contains for list membership");
                if (!Types.comparable(lt, rt)) throw cx.error(at, "T7", "cannot compare " + pair);
            }
        }
    }

    static String entityMessage(Operand o) {
        EntityRef e = (EntityRef) o;
        return "$" + e.variable() + " is a whole " + (e.table() instanceof NodeTable ? "node" : "edge")
                + " and cannot be compared; compare one of its properties";
    }
}

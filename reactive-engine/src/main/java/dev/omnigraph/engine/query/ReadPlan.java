package dev.omnigraph.engine.query;

import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.Property;
import dev.omnigraph.engine.schema.PropertyType;
import java.util.List;

/**
 * A checked read query with every name resolved: node variables carry their {@link NodeTable}, traversals their
 * {@link EdgeTable}, operands their {@link Property} and result type, and order keys point at projections.
 *
 * @param groupBy indexes of the non-aggregate projections when {@link #aggregating()} (implicit grouping);
 *                empty otherwise
 * @param limit   null when absent
 */
public record ReadPlan(String name, List<ParamDecl> params, MatchPlan match, List<Projection> projections,
                       boolean aggregating, List<Integer> groupBy, List<OrderKey> order, Long limit)
        implements CompiledQuery {
    public ReadPlan {
        params = List.copyOf(params);
        projections = List.copyOf(projections);
        groupBy = List.copyOf(groupBy);
        order = List.copyOf(order);
    }

    /** Output column names, in order. */
    public List<String> columns() {
        return projections.stream().map(Projection::column).toList();
    }

    /**
     * The pattern of one scope (the whole match block, or one {@code not} block). A conjunction: every node
     * variable, traversal, filter and negation must hold.
     *
     * @param nodes variables first bound in this scope, in binding order (a negation's inner plan lists only
     *              the variables it introduces; outer ones are referenced by name)
     */
    public record MatchPlan(List<NodeVar> nodes, List<Traversal> traversals, List<Filter> filters,
                            List<Negation> negations, List<TextFilter> textFilters) {
        public MatchPlan {
            nodes = List.copyOf(nodes);
            traversals = List.copyOf(traversals);
            filters = List.copyOf(filters);
            negations = List.copyOf(negations);
            textFilters = List.copyOf(textFilters);
        }

        public MatchPlan(List<NodeVar> nodes, List<Traversal> traversals, List<Filter> filters, List<Negation> negations) {
            this(nodes, traversals, filters, negations, List.of());
        }
    }

    /**
     * A node variable scanning {@code table}, restricted by equality matches. {@code anonymous} marks a {@code $_}
     * endpoint; its generated name ({@code _#1}, …) cannot clash with a written variable.
     */
    public record NodeVar(String name, NodeTable table, List<PropertyMatch> matches, boolean anonymous) {
        public NodeVar {
            matches = List.copyOf(matches);
        }
    }

    /**
     * {@code prop: value} of a binding. For a list property, {@code membership} is true and the value is one
     * element (the list contains it); otherwise the property equals the value.
     */
    public record PropertyMatch(Property property, ValueExpr value, boolean membership) {}

    public enum Direction {
        /** From the edge's source ({@code from}) to its destination ({@code to}). */
        OUT,
        /** {@code <edge>}: either way (only for edges whose two endpoint types are equal). */
        BOTH
    }

    /**
     * {@code $from edge $to}. A plain traversal has {@code minHops == maxHops == 1}. Without an edge variable the
     * result has set semantics per (from, to); with one ({@code edgeVariable} non-null) there is one row per edge.
     */
    public record Traversal(String from, EdgeTable edge, String to, Direction direction, int minHops, int maxHops,
                            String edgeVariable) {}

    /** {@code left op right}; see {@link CompareOp} for {@code contains}. NULL never matches. */
    public record Filter(Operand left, CompareOp op, Operand right) {}

    /** {@code not { … }}: an anti-join on {@code outerVariables} (at least one). */
    public record Negation(MatchPlan inner, List<String> outerVariables) {
        public Negation {
            outerVariables = List.copyOf(outerVariables);
        }
    }

    /** A resolved operand of a filter, projection or order key. */
    public sealed interface Operand permits PropertyRef, EntityRef, Constant, AggregateOf, Rank {
        ResultType type();
    }

    /**
     * {@code $var.prop}; {@code onEdge} when {@code variable} is an edge binding. The implicit columns {@code id}
     * (and {@code src}/{@code dst} on edges) appear as non-null String properties of those names.
     */
    public record PropertyRef(String variable, Property property, boolean onEdge) implements Operand {
        @Override
        public ResultType type() {
            return new ResultType.Value(property.type(), property.nullable());
        }
    }

    /** A bare node variable (a whole entity). */
    public record EntityRef(String variable, CatalogTable table) implements Operand {
        @Override
        public ResultType type() {
            return table instanceof NodeTable n ? new ResultType.Node(n) : new ResultType.Edge((EdgeTable) table);
        }
    }

    /**
     * A literal, parameter or {@code now()}; {@code valueType} is what {@link ValueExpr#resolve} should convert
     * it to (a literal's value already has that type: an integer literal compared with an F64 property is a Double).
     */
    public record Constant(ValueExpr value, PropertyType valueType, boolean nullable) implements Operand {
        @Override
        public ResultType type() {
            return new ResultType.Value(valueType, nullable);
        }
    }

    /** {@code fn(arg)}; {@code arg} is a {@link PropertyRef} or, for {@code count}, an {@link EntityRef}. */
    public record AggregateOf(AggFn fn, Operand arg, ResultType type) implements Operand {}

    /** The type of an operand or output column. */
    public sealed interface ResultType {
        record Value(PropertyType type, boolean nullable) implements ResultType {}

        record Node(NodeTable table) implements ResultType {}

        record Edge(EdgeTable table) implements ResultType {}
    }

    /** An output column: alias, or {@code var.prop} / {@code var} / {@code fn(var.prop)} / {@code literal} / {@code now}. */
    public record Projection(String column, Operand expr) {
        public ResultType type() {
            return expr.type();
        }
    }

    /**
     * One sort key; ties are finally broken by the bound entities' ids ascending, NULLs first ascending and last
     * descending. {@code projection} is the index of the projection it equals (always set for alias keys and in
     * aggregate queries), or -1.
     */
    public record OrderKey(Operand expr, boolean descending, int projection) {}
}

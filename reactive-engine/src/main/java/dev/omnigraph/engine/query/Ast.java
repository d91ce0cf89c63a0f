package dev.omnigraph.engine.query;

import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.List;

/**
 * The parse tree of a {@code .gq} query body, before any name is resolved against a catalog. Every node keeps
 * the 1-based position of its first token so the type checker can point at the offending text.
 */
public final class Ast {
    private Ast() {}

    /** A 1-based source position. */
    public record Pos(int line, int column) {}

    // ---- expressions ---------------------------------------------------------------------------------

    /** An operand of a filter, projection, ordering, or a match/assignment value. */
    public sealed interface Expr permits PropAccess, Var, AliasRef, Now, Aggregate, SearchCall, Literal {
        Pos pos();
    }

    /** {@code $variable.property}. */
    public record PropAccess(String variable, String property, Pos pos, Pos propertyPos) implements Expr {}

    /** {@code $name}: a match variable or a query parameter; the checker decides which. */
    public record Var(String name, Pos pos) implements Expr {}

    /** A bare identifier, only meaningful as a reference to a return alias. */
    public record AliasRef(String name, Pos pos) implements Expr {}

    /** {@code now()}. */
    public record Now(Pos pos) implements Expr {}

    /** {@code count(…)}, {@code sum(…)}, …. */
    public record Aggregate(AggFn fn, Expr arg, Pos pos) implements Expr {}

    /**
     * {@code search}, {@code fuzzy}, {@code match_text}, {@code bm25}, {@code nearest} or {@code rrf} with its
     * arguments as written; the checker decides where each may appear.
     */
    public record SearchCall(String function, List<Expr> args, Pos pos) implements Expr {
        public SearchCall {
            args = List.copyOf(args);
        }
    }

    /** A literal as written; its Java value is fixed only once the checker knows the target type. */
    public sealed interface Literal extends Expr permits IntLit, FloatLit, StrLit, BoolLit, DateLit, DateTimeLit, ListLit {}

    /** Unsigned (.gq has no negative literals); a BigInteger so that the full U64 range can be written. */
    public record IntLit(BigInteger value, Pos pos) implements Literal {}

    public record FloatLit(double value, String text, Pos pos) implements Literal {}

    public record StrLit(String value, Pos pos) implements Literal {}

    public record BoolLit(boolean value, Pos pos) implements Literal {}

    public record DateLit(LocalDate value, Pos pos) implements Literal {}

    /** Millisecond precision, like the engine's DateTime columns. */
    public record DateTimeLit(Instant value, Pos pos) implements Literal {}

    public record ListLit(List<Literal> items, Pos pos) implements Literal {
        public ListLit {
            items = List.copyOf(items);
        }
    }

    // ---- match clauses -------------------------------------------------------------------------------

    public sealed interface Clause permits Binding, Traversal, Filter, Negation, TextClause {
        Pos pos();
    }

    /** {@code $var: Type { prop: value, … }}. */
    public record Binding(String variable, String typeName, List<PropMatch> matches, Pos pos, Pos typePos)
            implements Clause {
        public Binding {
            matches = List.copyOf(matches);
        }
    }

    /** {@code prop: value} inside a binding; the value is a literal, a variable or {@code now()}. */
    public record PropMatch(String property, Expr value, Pos pos) {}

    /**
     * {@code $from [$edgeVar:] edgeName|<edgeName> [{min, max}] $to}. {@code edgeVariable} and {@code hops}
     * are null when not written.
     */
    public record Traversal(String from, String edgeVariable, String edgeName, boolean undirected, HopBounds hops,
                            String to, Pos pos, Pos edgeVariablePos, Pos edgePos, Pos toPos) implements Clause {}

    /** {@code {min, max}}; {@code max} is null for the (rejected) open form {@code {min,}}. */
    public record HopBounds(long min, Long max, Pos pos) {}

    /** {@code left op right}; {@code pos} is the left operand's, {@code opPos} the operator's. */
    public record Filter(Expr left, CompareOp op, Expr right, Pos pos, Pos opPos) implements Clause {}

    /** {@code search(…)}, {@code fuzzy(…)} or {@code match_text(…)} written as a match clause. */
    public record TextClause(SearchCall call) implements Clause {
        @Override
        public Pos pos() {
            return call.pos();
        }
    }

    /** {@code not { … }}. */
    public record Negation(List<Clause> clauses, Pos pos) implements Clause {
        public Negation {
            clauses = List.copyOf(clauses);
        }
    }

    // ---- bodies --------------------------------------------------------------------------------------

    public sealed interface Body permits ReadBody, MutationBody {}

    /** {@code limit} is null when absent. */
    public record ReadBody(List<Clause> match, List<Projection> projections, List<Ordering> order, Long limit,
                           Pos pos, Pos limitPos) implements Body {
        public ReadBody {
            match = List.copyOf(match);
            projections = List.copyOf(projections);
            order = List.copyOf(order);
        }
    }

    /** {@code alias} is null when not written. */
    public record Projection(Expr expr, String alias, Pos pos) {}

    public record Ordering(Expr expr, boolean descending, Pos pos) {}

    public record MutationBody(List<Statement> statements) implements Body {
        public MutationBody {
            statements = List.copyOf(statements);
        }
    }

    public sealed interface Statement permits Insert, Update, Delete {
        String typeName();

        Pos pos();

        Pos typePos();
    }

    public record Insert(String typeName, List<Assignment> assignments, Pos pos, Pos typePos) implements Statement {
        public Insert {
            assignments = List.copyOf(assignments);
        }
    }

    public record Update(String typeName, List<Assignment> assignments, Where where, Pos pos, Pos typePos)
            implements Statement {
        public Update {
            assignments = List.copyOf(assignments);
        }
    }

    public record Delete(String typeName, Where where, Pos pos, Pos typePos) implements Statement {}

    /** {@code prop: value}; the value is a literal, a variable or {@code now()}. */
    public record Assignment(String property, Expr value, Pos pos) {}

    /** {@code where prop op value}: exactly one comparison. */
    public record Where(String property, CompareOp op, Expr value, Pos pos, Pos opPos) {}
}

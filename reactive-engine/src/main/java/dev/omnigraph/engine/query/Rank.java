package dev.omnigraph.engine.query;

import dev.omnigraph.engine.query.ReadPlan.Operand;
import dev.omnigraph.engine.query.ReadPlan.PropertyRef;
import dev.omnigraph.engine.query.ReadPlan.ResultType;

/**
 * A ranking operand: a per-solution score computed over the whole set of solutions of a read (order keys and
 * projections only). {@code nearest} is a distance (closest first), {@code bm25} and {@code rrf} are scores (best
 * first); every one is an F64.
 */
public sealed interface Rank extends Operand permits Rank.Nearest, Rank.Bm25, Rank.Rrf {
    /** {@code nearest($v.vec, q)}: squared Euclidean distance; NULL for a row without a vector. */
    record Nearest(PropertyRef vector, Operand query) implements Rank {
        @Override
        public ResultType type() {
            return new ResultType.Value(Types.F64, true);
        }
    }

    /** {@code bm25($v.text, q)}: the Okapi BM25 score of the row's text for the query (0 when no term occurs). */
    record Bm25(PropertyRef field, Operand query) implements Rank {
        @Override
        public ResultType type() {
            return new ResultType.Value(Types.F64, false);
        }
    }

    /**
     * {@code rrf(a, b[, k])}: reciprocal-rank fusion, {@code 1/(k + rank_a) + 1/(k + rank_b)} with 1-based ranks;
     * a solution missing from a ranking (no vector, no query term) adds nothing for it. {@code k} is null for the
     * default ({@link #DEFAULT_K}).
     */
    record Rrf(Rank first, Rank second, Operand k) implements Rank {
        public static final long DEFAULT_K = 60;

        @Override
        public ResultType type() {
            return new ResultType.Value(Types.F64, false);
        }
    }
}

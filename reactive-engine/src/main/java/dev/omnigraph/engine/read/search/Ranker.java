package dev.omnigraph.engine.read.search;

import dev.omnigraph.engine.query.Rank;
import dev.omnigraph.engine.query.ReadPlan.Operand;
import dev.omnigraph.engine.query.ReadPlan.PropertyRef;
import dev.omnigraph.storage.error.BadRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Computes the rankings of a read over its complete set of solutions and stores each score in the solution's slot
 * for that ranking, where order keys and projections read it. Exact by construction: every solution that passed
 * the filters is scored (brute force), so a filter never shrinks a top-k; an index can later narrow the candidates
 * handed in here without changing the answer.
 */
public final class Ranker {
    /** The statistics of a text column of the table a variable is bound to, at the pinned version. */
    @FunctionalInterface
    public interface Corpus {
        Mono<CorpusStats> stats(String variable, String column);
    }

    private final List<Rank> ranks;
    private final ToIntFunction<Rank> rankSlot;
    private final ToIntFunction<String> varSlot;
    private final Function<Operand, Object> constants;
    private final Comparator<Object[]> tieBreak;

    /**
     * @param ranks     every ranking of the plan, nested ones before the rrf that fuses them
     * @param constants resolves a constant operand for this request
     * @param tieBreak  the query's final tie break (bound ids ascending), used for the ranks fused by rrf
     */
    public Ranker(List<Rank> ranks, ToIntFunction<Rank> rankSlot, ToIntFunction<String> varSlot,
                  Function<Operand, Object> constants, Comparator<Object[]> tieBreak) {
        this.ranks = List.copyOf(ranks);
        this.rankSlot = rankSlot;
        this.varSlot = varSlot;
        this.constants = constants;
        this.tieBreak = tieBreak;
    }

    public boolean isEmpty() {
        return ranks.isEmpty();
    }

    /** Whether every ranking can be scored one solution at a time (no rrf, which ranks the whole set). */
    public boolean perSolution() {
        return ranks.stream().noneMatch(r -> r instanceof Rank.Rrf);
    }

    /** Scores {@code solutions} in place (their rank slots) and returns them. */
    public Mono<List<Object[]>> prepare(List<Object[]> solutions, Corpus corpus) {
        if (ranks.isEmpty() || solutions.isEmpty()) return Mono.just(solutions);
        return statistics(corpus).map(stats -> {
            for (Rank r : ranks) score(r, solutions, stats);
            return solutions;
        });
    }

    /**
     * A scorer of one solution at a time (its nearest and bm25 slots), for a read that keeps only its top k; only
     * when {@link #perSolution()}. The bm25 statistics are read first, once.
     */
    public Mono<Consumer<Object[]>> scorer(Corpus corpus) {
        if (!perSolution()) throw new IllegalStateException("rrf ranks the whole set of solutions");
        return statistics(corpus).map(stats -> {
            List<Consumer<Object[]>> parts = new ArrayList<>();
            for (Rank r : ranks) parts.add(single(r, stats));
            return s -> {
                for (Consumer<Object[]> p : parts) p.accept(s);
            };
        });
    }

    private Mono<Map<Rank.Bm25, CorpusStats>> statistics(Corpus corpus) {
        List<Rank.Bm25> texts = ranks.stream().filter(r -> r instanceof Rank.Bm25).map(r -> (Rank.Bm25) r).toList();
        return Flux.fromIterable(texts)
                .concatMap(r -> corpus.stats(r.field().variable(), r.field().property().name()).map(s -> Map.entry(r, s)))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue, HashMap::new);
    }

    private void score(Rank r, List<Object[]> solutions, Map<Rank.Bm25, CorpusStats> stats) {
        if (r instanceof Rank.Rrf f) {
            int slot = rankSlot.applyAsInt(r);
            long k = f.k() == null ? Rank.Rrf.DEFAULT_K : ((Number) constants.apply(f.k())).longValue();
            if (k <= 0) throw new BadRequest("rrf k must be positive, got " + k);
            for (Object[] s : solutions) s[slot] = 0.0;
            fuse(f.first(), k, slot, solutions);
            fuse(f.second(), k, slot, solutions);
            return;
        }
        Consumer<Object[]> one = single(r, stats);
        for (Object[] s : solutions) one.accept(s);
    }

    /** The scorer of a nearest or bm25 ranking; the query is resolved (and checked) here, once. */
    private Consumer<Object[]> single(Rank r, Map<Rank.Bm25, CorpusStats> stats) {
        int slot = rankSlot.applyAsInt(r);
        if (r instanceof Rank.Nearest n) {
            Object q = constants.apply(n.query());
            if (q == null) throw new BadRequest("nearest(…) needs a query vector; the optional parameter is absent");
            float[] query = VectorDistance.toArray((List<?>) q);
            return s -> s[slot] = VectorDistance.squaredL2((List<?>) value(s, n.vector()), query);
        }
        Rank.Bm25 b = (Rank.Bm25) r;
        Object q = constants.apply(b.query());
        List<String> tokens = q == null ? List.of() : Tokenizer.tokens((String) q);
        CorpusStats corpus = stats.get(b);
        return s -> s[slot] = Bm25.score(corpus, tokens, (String) value(s, b.field()));
    }

    /** Adds {@code 1/(k + rank)} of the ranking {@code part} (already scored) to the rrf slot. */
    private void fuse(Rank part, long k, int slot, List<Object[]> solutions) {
        int partSlot = rankSlot.applyAsInt(part);
        boolean closestFirst = part instanceof Rank.Nearest;
        List<Object[]> ranked = new ArrayList<>();
        for (Object[] s : solutions) {
            Double v = (Double) s[partSlot];
            if (v != null && (closestFirst || v > 0)) ranked.add(s); // no vector / no query term: not in that list
        }
        Comparator<Object[]> byScore = Comparator.comparingDouble(s -> (Double) s[partSlot]);
        ranked.sort((closestFirst ? byScore : byScore.reversed()).thenComparing(tieBreak));
        for (int i = 0; i < ranked.size(); i++) {
            Object[] s = ranked.get(i);
            s[slot] = (Double) s[slot] + 1.0 / (k + i + 1);
        }
    }

    private Object value(Object[] solution, PropertyRef ref) {
        Object row = solution[varSlot.applyAsInt(ref.variable())];
        return row == null ? null : ((Map<?, ?>) row).get(ref.property().name());
    }
}

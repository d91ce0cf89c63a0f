package dev.omnigraph.engine.read;

import dev.omnigraph.engine.schema.IndexPlan;
import dev.omnigraph.engine.query.Rank;
import dev.omnigraph.engine.query.ReadPlan;
import dev.omnigraph.engine.query.ReadPlan.MatchPlan;
import dev.omnigraph.engine.read.Predicates.CompiledFilter;
import dev.omnigraph.engine.read.search.Ranker;
import dev.omnigraph.engine.read.search.Tokenizer;
import dev.omnigraph.storage.FullTextRequest;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.SqlLiterals;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.TableStorage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * An ordered read of one variable ({@code match { $d: Doc … } … order { … } limit k}: by properties, bm25 or nearest;
 * no traversal, negation, aggregate or rrf) keeps only its top k, so memory holds k solutions however many rows
 * match (the general path holds every match before it orders them, and its budget refuses millions). Either storage
 * answers it through an index (the vector
 * index, see {@link AnnSearch}; or, for an order by one unfiltered {@code bm25}, the column's inverted index), or the
 * scan streams through the filters into a bounded heap of the k best solutions under the read's total order
 * ({@link ResultShaper#solutionOrder}), so memory holds k solutions whatever the table's size.
 *
 * <p>Through the inverted index Lance returns the best-scored matches with its own BM25 scores (float precision,
 * statistics of the index); Lance orders ties arbitrarily, so it is asked for one row more than k, and for at least
 * {@link #WIDE_STEP} rows (then four times more) while the row after the k-th ties with it: the tie is then broken
 * by the same rule as the exact path. Fewer matches than k (the exact answer then includes rows that score 0), no
 * index, or an index built with other tokenizer settings: the heap path answers.
 */
final class TopKRead {
    /** The largest limit kept in a heap; a larger one holds every solution (the general path). */
    static final long MAX_K = 10_000;
    /** Rows asked of the inverted index while widening past a tie; beyond it the heap path answers. */
    static final int MAX_INDEX_ROWS = 100_000;
    /** The first widening asks for at least this many rows. */
    static final int WIDE_STEP = 1_024;

    private final ReadPlan plan;
    private final ReadPlan.NodeVar variable;
    private final int k;
    private final Rank.Bm25 indexedBm25;

    private TopKRead(ReadPlan plan, int k, Rank.Bm25 indexedBm25) {
        this.plan = plan;
        this.variable = plan.match().nodes().get(0);
        this.k = k;
        this.indexedBm25 = indexedBm25;
    }

    /** The top-k read of {@code plan}, when its shape qualifies (nothing is read here). */
    static Optional<TopKRead> of(ReadPlan plan, Layout layout, Ranker ranker) {
        MatchPlan m = plan.match();
        if (plan.aggregating() || !ranker.perSolution() || plan.order().isEmpty()
                || plan.limit() == null || plan.limit() < 1 || plan.limit() > MAX_K || m.nodes().size() != 1
                || !m.traversals().isEmpty() || !m.negations().isEmpty()) {
            return Optional.empty();
        }
        Rank.Bm25 bm25 = null;
        if (plan.order().size() == 1 && plan.order().get(0).expr() instanceof Rank.Bm25 b
                && layout.ranks().equals(List.of(b)) && m.filters().isEmpty() && m.textFilters().isEmpty()
                && m.nodes().get(0).matches().isEmpty()) {
            bm25 = b;
        }
        return Optional.of(new TopKRead(plan, Math.toIntExact(plan.limit()), bm25));
    }

    /**
     * The top k solutions, scored, in any order (the shaper orders them). {@code viaIndex}: candidates an index
     * found, to be scored by {@code ranker} (the vector index), or empty.
     */
    Mono<List<Object[]>> solutions(TableStorage tables, TableReader reader, Layout layout, Predicates predicates,
                                   Matcher.Scope scope, Ranker ranker, Ranker.Corpus corpus, ResultShaper shaper,
                                   QueryBudget budget, Mono<Optional<List<Object[]>>> viaIndex) {
        Mono<Optional<List<Object[]>>> indexed = indexedBm25 == null ? viaIndex
                : fullText(tables, reader, layout, shaper, predicates.operand(indexedBm25.query(), null).value(), budget);
        return indexed.flatMap(found -> found.map(Mono::just).orElseGet(() -> ranker.scorer(corpus)
                .flatMap(score -> heap(reader, layout, scope, score, shaper.solutionOrder(), budget))));
    }

    /** The scan streamed through the filters into a heap of the k best (its worst at the head). */
    private Mono<List<Object[]>> heap(TableReader reader, Layout layout, Matcher.Scope scope, Consumer<Object[]> score,
                                      Comparator<Object[]> order, QueryBudget budget) {
        int slot = layout.slot(variable.name());
        List<CompiledFilter> filters = scope.filters();
        PriorityQueue<Object[]> best = new PriorityQueue<>(k + 1, order.reversed());
        return reader.batches(variable.table(), Matcher.pushdown(scope, variable.name()),
                        layout.columns(variable.name(), variable.table()), ScanRequest.DEFAULT_BATCH_SIZE,
                        scope.text(variable.name()))
                .concatMapIterable(batch -> batch)
                .publishOn(Schedulers.parallel())
                .doOnNext(row -> {
                    Object[] s = layout.empty();
                    s[slot] = row;
                    for (CompiledFilter f : filters) if (!f.test().test(s)) return;
                    score.accept(s);
                    if (best.size() < k) {
                        budget.hold(1);
                        best.add(s);
                    } else if (order.compare(s, best.peek()) < 0) {
                        best.poll();
                        best.add(s);
                    }
                })
                .then(Mono.fromSupplier(() -> new ArrayList<>(best)));
    }

    private Mono<Optional<List<Object[]>>> fullText(TableStorage tables, TableReader reader, Layout layout,
                                                    ResultShaper shaper, Object query, QueryBudget budget) {
        List<String> terms = query instanceof String q ? Tokenizer.tokens(q) : List.of();
        if (terms.isEmpty()) return Mono.just(Optional.empty()); // every row scores 0: the exact path orders them
        TableSnapshot pinned = reader.snapshot(variable.table());
        String column = indexedBm25.field().property().name();
        List<String> columns = layout.columns(variable.name(), variable.table());
        String index = IndexPlan.invertedIndexName(column);
        return ask(tables, pinned, index, new FullTextRequest(column, String.join(" ", terms),
                FullTextRequest.Match.ANY, 0, k + 1, columns)).flatMap(found -> {
                    if (found.isEmpty()) return Mono.just(Optional.<List<Object[]>>empty());
                    List<Map<String, Object>> rows = found.get();
                    budget.hold(rows.size());
                    List<Object[]> scored = solutions(layout, rows);
                    if (rows.isEmpty() || rows.get(0).keySet().containsAll(columns)) return Mono.just(Optional.of(scored));
                    // Widened past a tie with ids only: keep the k best by the read's own order, then read them whole.
                    scored.sort(shaper.solutionOrder());
                    List<Object[]> best = scored.subList(0, k);
                    int slot = layout.slot(variable.name());
                    Map<Object, Map<String, Object>> whole = new HashMap<>();
                    List<String> ids = best.stream().map(s -> (String) ((Map<?, ?>) s[slot]).get("id")).toList();
                    return reader.scanByKeys(variable.table(), ids, batch -> SqlLiterals.inList("id", batch), columns,
                                    (keys, found2) -> found2.forEach(r -> whole.put(r.get("id"), r)))
                            .then(Mono.fromSupplier(() -> {
                                if (!whole.keySet().containsAll(ids)) return Optional.<List<Object[]>>empty();
                                List<Object[]> out = new ArrayList<>(k);
                                for (Object[] s : best) {
                                    Object[] copy = s.clone();
                                    copy[slot] = whole.get(((Map<?, ?>) s[slot]).get("id"));
                                    out.add(copy);
                                }
                                return Optional.of(out);
                            }));
                });
    }

    /** One solution per index row: the row (without {@code _score}) bound, Lance's score in the rank slot. */
    private List<Object[]> solutions(Layout layout, List<Map<String, Object>> rows) {
        int slot = layout.slot(variable.name());
        int rank = layout.rankSlot(indexedBm25);
        List<Object[]> out = new ArrayList<>(rows.size());
        for (Map<String, Object> row : rows) {
            Map<String, Object> data = new HashMap<>(row);
            Object score = data.remove("_score");
            Object[] s = layout.empty();
            s[slot] = data;
            s[rank] = ((Number) score).doubleValue();
            out.add(s);
        }
        return out;
    }

    /** Asks for {@code request}'s limit, widening while the row after the k-th ties with it. */
    private Mono<Optional<List<Map<String, Object>>>> ask(TableStorage tables, TableSnapshot pinned, String index,
                                                          FullTextRequest request) {
        return tables.fullText(pinned, index, request).flatMap(found -> {
            if (found.isEmpty()) return Mono.just(found);
            List<Map<String, Object>> rows = found.get();
            if (rows.size() < k) return Mono.just(Optional.empty()); // rows scoring 0 belong to the answer
            if (rows.size() < request.limit() || !score(rows, k - 1).equals(score(rows, k))) return Mono.just(found);
            // Scores tie often (same length, same term counts): one wide step usually takes the whole tie.
            int wider = (int) Math.min(Math.max((long) request.limit() * 4, WIDE_STEP), MAX_INDEX_ROWS + 1L);
            if (request.limit() > MAX_INDEX_ROWS) return Mono.just(Optional.empty());
            // Past the first ask only ids and scores travel; the k kept are read whole afterwards.
            return ask(tables, pinned, index, new FullTextRequest(request.column(), request.terms(), request.match(),
                    0, wider, List.of("id")));
        });
    }

    private static Object score(List<Map<String, Object>> rows, int i) {
        return rows.get(i).get("_score");
    }
}

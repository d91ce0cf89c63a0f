package dev.omnigraph.engine.read;

import dev.omnigraph.engine.query.BoundParams;
import dev.omnigraph.engine.query.Rank;
import dev.omnigraph.engine.query.ReadPlan;
import dev.omnigraph.engine.query.ReadPlan.MatchPlan;
import dev.omnigraph.engine.read.Predicates.CompiledFilter;
import dev.omnigraph.engine.read.search.CorpusCache;
import dev.omnigraph.engine.read.search.Ranker;
import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.QueryTimeout;
import dev.omnigraph.storage.manifest.ManifestState;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Executes type-checked read plans against one pinned manifest state: every table is read at the version that
 * state publishes, so a query never sees half of a write. Pipeline: scan (single-variable filters pushed into the
 * Lance scan) → expand traversals by frontier ids → filters as soon as their variables are bound → anti-joins for
 * {@code not} → project or aggregate → total order → limit.
 *
 * <p>A block of one variable without traversals, negations, aggregates or order streams straight from its scan (the
 * limit cancels the scan early); everything else is evaluated in memory on the parallel scheduler as its scans
 * deliver batches, then emitted row by row on demand. Without {@code order} the row order is unspecified.
 *
 * <p>Every run is bounded by its {@link QueryLimits}: rows and estimated memory are charged while solutions are
 * produced, the result rows are counted, and a deadline ends the run. A breach fails the rows with
 * {@code ResourceLimitExceeded} or {@code QueryTimeout}, cancels the scans in flight and drops what was built.
 */
public final class QueryExecutor {
    /** Hit before each scan a query starts; tests arm it to stall or fail a query's reads. */
    public static final String SCAN_FAILPOINT = "query.before_scan";

    private final TableStorage tables;
    private final String root;
    private final Catalog catalog;
    private final Failpoints failpoints;
    private final CorpusCache corpus;
    private final TopologyCache topologies;

    public QueryExecutor(TableStorage tables, String root, Catalog catalog) {
        this(tables, root, catalog, Failpoints.none());
    }

    /** {@code failpoints}: where tests stall a query's scans ({@link #SCAN_FAILPOINT}). */
    public QueryExecutor(TableStorage tables, String root, Catalog catalog, Failpoints failpoints) {
        this(tables, root, catalog, failpoints, new CorpusCache());
    }

    /** {@code corpus}: the graph's BM25 statistics per table version, shared by its queries. */
    public QueryExecutor(TableStorage tables, String root, Catalog catalog, Failpoints failpoints, CorpusCache corpus) {
        this(tables, root, catalog, failpoints, corpus, TopologyCache.shared());
    }

    /** {@code topologies}: the edge-table adjacency traversals may walk (the process's shared cache by default). */
    public QueryExecutor(TableStorage tables, String root, Catalog catalog, Failpoints failpoints, CorpusCache corpus,
                         TopologyCache topologies) {
        this.topologies = topologies;
        this.tables = tables;
        this.root = root;
        this.catalog = catalog;
        this.failpoints = failpoints;
        this.corpus = corpus;
    }

    /** {@link #execute(ReadPlan, BoundParams, ManifestState, Instant, QueryLimits)} with the default limits. */
    public QueryResult execute(ReadPlan plan, BoundParams params, ManifestState state, Instant now) {
        return execute(plan, params, state, now, QueryLimits.DEFAULT);
    }

    /**
     * Executes a type-checked read plan against one pinned manifest state. Constants are resolved here, so a
     * parameter that does not fit where it is used fails synchronously; nothing is read until {@code rows} is
     * subscribed, and each subscription runs with a fresh budget.
     *
     * @param now the request's timestamp for {@code now()}
     * @throws BadRequest for a parameter value that does not fit, or a plan compiled against another schema
     */
    public QueryResult execute(ReadPlan plan, BoundParams params, ManifestState state, Instant now, QueryLimits limits) {
        requireCatalogTables(plan.match());
        Layout layout = Layout.of(plan);
        Predicates predicates = new Predicates(layout, params, now);
        Matcher.Scope scope = new Matcher(new TableReader(tables, root, state), layout, predicates).compile(plan.match());
        ResultShaper shaper = new ResultShaper(plan, layout, predicates);
        Ranker ranker = new Ranker(layout.ranks(), layout::rankSlot, layout::slot,
                op -> predicates.operand(op, null).value(), shaper::compareIds);
        Optional<AnnSearch> ann = AnnSearch.of(plan, layout);
        Optional<TopKRead> topK = TopKRead.of(plan, layout, ranker);
        Optional<CountRead> count = ranker.isEmpty() ? CountRead.of(plan, scope) : Optional.empty();
        Flux<List<Object>> rows = Flux.defer(() -> {
            QueryBudget budget = new QueryBudget(limits, layout.size());
            TableReader reader = new TableReader(tables, root, state, failpoints, budget, topologies, KeyRowsCache.shared());
            SearchCorpus searchCorpus = new SearchCorpus(reader, corpus, plan);
            Mono<Optional<List<Object[]>>> viaAnn = ann.map(search -> search.solutions(tables, reader, layout,
                            predicates.operand(((Rank.Nearest) plan.order().get(0).expr()).query(), null).value(), budget)
                    .flatMap(found -> found.isEmpty() ? Mono.just(found)
                            : ranker.prepare(found.get(), searchCorpus).map(Optional::of)))
                    .orElse(Mono.just(Optional.empty()));
            Flux<List<Object>> run = count.isPresent() ? count.get().rows(tables, reader, failpoints, budget)
                    : streamable(plan) && ranker.isEmpty()
                    ? stream(plan, scope, layout, reader, shaper, budget)
                    : topK.isPresent()
                    ? topK.get().solutions(tables, reader, layout, predicates, scope, ranker, searchCorpus, shaper,
                                    budget, viaAnn)
                            .flatMapIterable(solutions -> shaper.finish(solutions, budget))
                    : viaAnn.flatMap(found -> found.map(Mono::just).orElseGet(() -> Mono.defer(() -> {
                                budget.hold(1); // the empty solution every match starts from
                                return new Matcher(reader, layout, predicates, budget)
                                        .run(scope, List.<Object[]>of(layout.empty()), Set.of())
                                        .flatMap(solutions -> ranker.prepare(solutions, searchCorpus));
                            })))
                    .flatMapIterable(solutions -> shaper.finish(solutions, budget));
            return bounded(run, budget, limits.timeout());
        });
        return new QueryResult(ResultShaper.columns(plan), rows);
    }

    /**
     * Ends {@code rows} with a {@link QueryTimeout} at the deadline. Cancellation (deadline, breach downstream, a
     * consumer gone) marks the budget, so a join loop in progress stops at its next charge rather than finishing.
     */
    private static Flux<List<Object>> bounded(Flux<List<Object>> rows, QueryBudget budget, Duration timeout) {
        Mono<Long> deadline = Mono.delay(timeout).then(Mono.error(() -> new QueryTimeout(timeout)));
        return rows
                // A loop that noticed the cancellation throws; nobody is listening any more, so end quietly.
                .onErrorResume(QueryBudget.Cancelled.class, e -> Flux.empty())
                .doOnCancel(budget::cancel)
                .takeUntilOther(deadline);
    }

    private static boolean streamable(ReadPlan plan) {
        MatchPlan m = plan.match();
        return !plan.aggregating() && plan.order().isEmpty() && m.nodes().size() == 1 && m.traversals().isEmpty()
                && m.negations().isEmpty();
    }

    private static Flux<List<Object>> stream(ReadPlan plan, Matcher.Scope scope, Layout layout, TableReader reader,
                                             ResultShaper shaper, QueryBudget budget) {
        ReadPlan.NodeVar v = plan.match().nodes().get(0);
        int slot = layout.slot(v.name());
        Long limit = plan.limit();
        // A small limit reads small batches, so the first page does not pay for a full default batch.
        int batchSize = limit != null && limit < ScanRequest.DEFAULT_BATCH_SIZE
                ? (int) Math.max(64, limit) : ScanRequest.DEFAULT_BATCH_SIZE;
        List<CompiledFilter> filters = scope.filters();
        Flux<List<Object>> rows = Flux.defer(() -> Matcher.variableRows(reader, scope, v, layout.columns(v.name(), v.table()),
                        batchSize).concatMapIterable(batch -> batch))
                .publishOn(Schedulers.parallel())
                .map((Map<String, Object> row) -> {
                    Object[] s = layout.empty();
                    s[slot] = row;
                    return s;
                })
                .filter(s -> {
                    for (CompiledFilter f : filters) if (!f.test().test(s)) return false;
                    return true;
                })
                .map(shaper::project);
        Flux<List<Object>> limited = limit == null ? rows : rows.take(limit);
        // Counted as they stream: the scan is cancelled at the first row past the budget.
        long[] emitted = {0};
        return limited.doOnNext(row -> budget.checkResultRows(++emitted[0]));
    }

    /** A plan compiled against another schema (say, before a schema apply) would read the wrong datasets. */
    private void requireCatalogTables(MatchPlan m) {
        for (ReadPlan.NodeVar n : m.nodes()) requireCatalogTable(n.table());
        for (ReadPlan.Traversal t : m.traversals()) requireCatalogTable(t.edge());
        for (ReadPlan.Negation n : m.negations()) requireCatalogTables(n.inner());
    }

    private void requireCatalogTable(CatalogTable t) {
        CatalogTable current = catalog.table(t.tableKey()).orElse(null);
        if (current == null || current.typeId() != t.typeId() || current.incarnationId() != t.incarnationId())
            throw new BadRequest("the query was compiled against another schema (" + t.tableKey()
                    + " is not in the current one); compile it again");
    }
}

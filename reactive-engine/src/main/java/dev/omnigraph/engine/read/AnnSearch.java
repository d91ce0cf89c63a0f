package dev.omnigraph.engine.read;

import dev.omnigraph.engine.schema.IndexPlan;
import dev.omnigraph.engine.query.Rank;
import dev.omnigraph.engine.query.ReadPlan;
import dev.omnigraph.engine.query.ReadPlan.MatchPlan;
import dev.omnigraph.engine.read.search.VectorDistance;
import dev.omnigraph.storage.NearestRequest;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.TableStorage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * {@code nearest} through the table's vector index. Only a read that ranks nothing but one {@code nearest} over one
 * unfiltered variable ({@code match { $d: Doc } … order { nearest($d.vec, $q) } limit k}) qualifies: Lance applies
 * filters after its top-k, so any filter would shrink the answer, and those reads stay exact. The index search
 * names the k candidates; their distances are then computed exactly (the same {@code Ranker} as the exact path), so
 * every reported distance is exact and only the candidate set is approximate (IVF probes
 * {@link IndexPlan#probes} partitions of about √rows: all of them on small tables). Without the index at the pinned version, or when the search finds fewer than k rows (rows without a
 * vector; or none, when Lance 0.39 fails on candidates deleted since the build), the exact path answers.
 */
final class AnnSearch {
    /** Largest limit served through the index; larger top-ks are exact scans anyway. */
    static final long MAX_K = 1000;

    private final ReadPlan.NodeVar variable;
    private final Rank.Nearest nearest;
    private final long limit;

    private AnnSearch(ReadPlan.NodeVar variable, Rank.Nearest nearest, long limit) {
        this.variable = variable;
        this.nearest = nearest;
        this.limit = limit;
    }

    /** The index search for {@code plan}, when its shape qualifies (nothing is read here). */
    static Optional<AnnSearch> of(ReadPlan plan, Layout layout) {
        MatchPlan m = plan.match();
        if (plan.aggregating() || m.nodes().size() != 1 || !m.traversals().isEmpty() || !m.filters().isEmpty()
                || !m.negations().isEmpty() || !m.textFilters().isEmpty() || !m.nodes().get(0).matches().isEmpty()) {
            return Optional.empty();
        }
        if (plan.limit() == null || plan.limit() < 1 || plan.limit() > MAX_K || plan.order().size() != 1) {
            return Optional.empty();
        }
        ReadPlan.OrderKey key = plan.order().get(0);
        if (key.descending() || !(key.expr() instanceof Rank.Nearest n) || !layout.ranks().equals(List.of(n))
                || !n.vector().variable().equals(m.nodes().get(0).name())) {
            return Optional.empty();
        }
        return Optional.of(new AnnSearch(m.nodes().get(0), n, plan.limit()));
    }

    /**
     * The candidate solutions (each binding the variable to one row), or empty when the exact path must answer.
     * {@code query} is the bound query vector (null: exact path, which reports the missing parameter).
     */
    Mono<Optional<List<Object[]>>> solutions(TableStorage tables, TableReader reader, Layout layout, Object query,
                                             QueryBudget budget) {
        if (!(query instanceof List<?> vector)) {
            return Mono.just(Optional.empty());
        }
        TableSnapshot pinned = reader.snapshot(variable.table());
        String column = nearest.vector().property().name();
        int k = Math.toIntExact(Math.min(pinned.rowCount(), limit));
        return tables.indexNames(pinned.ref(), pinned.version()).flatMap(names -> {
            if (!names.contains(IndexPlan.vectorIndexName(column)) || k < 1) {
                return Mono.just(Optional.<List<Object[]>>empty());
            }
            NearestRequest request = new NearestRequest(column, VectorDistance.toArray(vector), k,
                    IndexPlan.probes(pinned.rowCount()),
                    layout.columns(variable.name(), variable.table()));
            return tables.nearest(pinned, request).map(rows -> {
                if (rows.size() < k) {
                    return Optional.<List<Object[]>>empty();
                }
                budget.keep(rows);
                budget.hold(rows.size());
                int slot = layout.slot(variable.name());
                List<Object[]> out = new ArrayList<>(rows.size());
                for (Map<String, Object> row : rows) {
                    Object[] s = layout.empty();
                    s[slot] = row;
                    out.add(s);
                }
                return Optional.of(out);
            });
        });
    }
}

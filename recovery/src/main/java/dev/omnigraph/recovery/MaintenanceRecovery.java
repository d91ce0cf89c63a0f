package dev.omnigraph.recovery;

import dev.omnigraph.recovery.RecoveryRecord.TableOutcome;
import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.storage.TableHistory;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.Ulid;
import dev.omnigraph.storage.manifest.ExpectedHead;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.ManifestBatchPublisher;
import dev.omnigraph.storage.manifest.ManifestState;
import dev.omnigraph.storage.manifest.ManifestStore;
import dev.omnigraph.storage.manifest.PublishRequest;
import dev.omnigraph.storage.manifest.TableEntry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Recovery of an Optimize sidecar. Compaction cannot be staged: per table it commits {@code t} ReserveFragments
 * versions and then one Rewrite, i.e. versions {@code (E, C]} where {@code E} is the pin it started from
 * ({@code expectedVersion}) and {@code C = E + t + 1} the pin's {@code compactedVersion} (absent: the
 * {@code postCommitPin}); then one version per index build, up to {@code postCommitPin}. None of them changes a
 * table's rows, so whatever part of that range landed is published forward — never undone — once the table's
 * history proves it: every version in {@code (E, C]} is ReserveFragments/Rewrite (read from its transaction), and
 * every version past {@code C} has exactly {@code C}'s fragments (an index build's transaction cannot be read
 * without aborting the JVM, and a rebuild keeps the index names, so the proof is that no data moved). Per table,
 * from pin {@code P}, HEAD {@code H}:
 * <ul>
 *   <li>{@code P == E == H}: untouched; {@code P == H}, {@code E < H <= postCommitPin}: already published;</li>
 *   <li>{@code P == E < H <= postCommitPin} and {@code (E, H]} is proven as above: published at {@code H} (one
 *       publish for every such table);</li>
 *   <li>anything else (a foreign version, HEAD past the range, HEAD behind the pin): refused, sidecar kept.</li>
 * </ul>
 * Rolling forward is allowed in every mode (open sweep, write-entry heal, the optimizer's own compensation).
 */
final class MaintenanceRecovery {
    static final String OPERATION = SidecarRecovery.OPTIMIZE_RECOVERED_OPERATION;

    private final TableStorage tables;
    private final ManifestStore manifest;
    private final ManifestBatchPublisher publisher;
    private final TablePaths paths;

    MaintenanceRecovery(TableStorage tables, ManifestStore manifest, ManifestBatchPublisher publisher, TablePaths paths) {
        this.tables = tables;
        this.manifest = manifest;
        this.publisher = publisher;
        this.paths = paths;
    }

    /** What recovery does: the tables to publish at their HEAD, the audit outcomes, or why it must refuse. */
    record Plan(Optional<String> refusal, String branch, ManifestState state, Map<TablePin, Long> toPublish,
                List<TableOutcome> outcomes) {
    }

    /** True for the sidecars this class recovers (the rest are exact intents). */
    static boolean handles(Sidecar sidecar) {
        return sidecar.writerKind() == Sidecar.WriterKind.Optimize;
    }

    Mono<Plan> plan(Sidecar sidecar) {
        String branch = GraphBranches.graphBranch(Optional.ofNullable(sidecar.branch()));
        return manifest.load(branch).flatMap(state -> Flux.fromIterable(sidecar.tables())
                .concatMap(pin -> classify(pin, state).map(verdict -> Map.entry(pin, verdict)))
                .collectList()
                .map(verdicts -> {
                    Map<TablePin, Long> toPublish = new LinkedHashMap<>();
                    List<TableOutcome> outcomes = new ArrayList<>();
                    for (Map.Entry<TablePin, Verdict> entry : verdicts) {
                        Verdict verdict = entry.getValue();
                        if (verdict.refusal().isPresent()) {
                            return new Plan(verdict.refusal(), branch, state, Map.of(), List.of());
                        }
                        TablePin pin = entry.getKey();
                        if (verdict.publishAt().isPresent()) toPublish.put(pin, verdict.publishAt().getAsLong());
                        outcomes.add(new TableOutcome(pin.tableKey(), pin.expectedVersion(), verdict.endsAt()));
                    }
                    return new Plan(Optional.empty(), branch, state, toPublish, outcomes);
                }));
    }

    /** One maintenance publish of every table the plan moves forward; emits its commit id (empty: nothing to do). */
    Mono<Optional<String>> publish(Plan plan) {
        if (plan.toPublish().isEmpty()) {
            return Mono.just(Optional.empty());
        }
        Map<String, Long> expected = new LinkedHashMap<>();
        List<TableEntry> updates = new ArrayList<>();
        return Flux.fromIterable(plan.toPublish().entrySet())
                .concatMap(target -> tables.open(paths.ref(target.getKey()), OptionalLong.of(target.getValue()))
                        .doOnNext(snapshot -> {
                            TableEntry entry = plan.state().table(target.getKey().tableKey()).orElseThrow();
                            expected.put(entry.tableKey(), entry.version());
                            updates.add(entry.pinnedAt(snapshot.version(), entry.lanceBranch(), snapshot.rowCount()));
                        }))
                .then(Mono.defer(() -> manifest.branchIdentity(plan.branch())))
                .flatMap(identity -> publisher.publish(new PublishRequest(plan.branch(), ExpectedHead.any(), Optional.of(identity),
                                expected, updates, Ulid.next(), Optional.empty(),
                                Optional.of(SidecarRecovery.RECOVERY_ACTOR), RecoverySteps.nowMicros(), OPERATION)))
                .map(commit -> Optional.of(commit.id()));
    }

    private record Verdict(Optional<String> refusal, OptionalLong publishAt, long endsAt) {
        static Verdict refuse(String reason) {
            return new Verdict(Optional.of(reason), OptionalLong.empty(), -1);
        }
    }

    private Mono<Verdict> classify(TablePin pin, ManifestState state) {
        long published = state.table(pin.tableKey()).map(TableEntry::version).orElse(-1L);
        long expected = pin.expectedVersion();
        long last = pin.postCommitPin();
        return tables.head(paths.ref(pin)).flatMap(head -> {
            String where = pin.tableKey() + " (HEAD " + head + ", published " + published + ", optimize started at "
                    + expected + " and ends by " + last + ")";
            if (head < published || head > last) return Mono.just(Verdict.refuse(where + " moved outside the compaction"));
            if (published == head) {
                return Mono.just(published >= expected ? new Verdict(Optional.empty(), OptionalLong.empty(), head)
                        : Verdict.refuse(where + " is behind its pin"));
            }
            if (published != expected) return Mono.just(Verdict.refuse(where + " was published by another writer"));
            long compactedTo = pin.compactedVersion() == null ? last : pin.compactedVersion();
            Mono<Optional<String>> compaction = compactedTo == expected ? Mono.just(Optional.empty())
                    : tables.operationsBetween(paths.ref(pin), expected, Math.min(head, compactedTo))
                            .map(operations -> operations.stream().allMatch(TableHistory::isMaintenance) ? Optional.empty()
                                    : Optional.of(where + " has versions that are not compaction: " + operations));
            // Past the compaction only index builds: they move no fragment (their transactions are never read).
            Mono<Optional<String>> indexes = head <= compactedTo ? Mono.just(Optional.empty())
                    : tables.sameFragments(paths.ref(pin), compactedTo, head).map(same -> same ? Optional.empty()
                            : Optional.of(where + " has versions after its compaction that change fragments"));
            return compaction.zipWith(indexes).map(found -> found.getT1().or(found::getT2)
                    .map(Verdict::refuse).orElseGet(() -> new Verdict(Optional.empty(), OptionalLong.of(head), head)));
        });
    }
}

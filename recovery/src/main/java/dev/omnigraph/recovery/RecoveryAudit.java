package dev.omnigraph.recovery;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.omnigraph.storage.RowBatch;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.SqlLiterals;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.StorageFault;
import java.io.IOException;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The recovery audit log: a Lance dataset ({@code _graph_commit_recoveries}, created on first use) with one row
 * per finished recovery. Appends are idempotent per operation id, so a recovery that crashed after auditing and
 * runs again records exactly one row.
 */
public final class RecoveryAudit {
    public static final String DIRECTORY = "_graph_commit_recoveries";
    private static final ObjectMapper JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
    static final Schema SCHEMA = new Schema(List.of(
            Field.nullable("graph_commit_id", new ArrowType.Utf8()),
            Field.notNullable("recovery_kind", new ArrowType.Utf8()),
            Field.nullable("recovery_for_actor", new ArrowType.Utf8()),
            Field.notNullable("operation_id", new ArrowType.Utf8()),
            Field.notNullable("sidecar_writer_kind", new ArrowType.Utf8()),
            Field.notNullable("per_table_outcomes_json", new ArrowType.Utf8()),
            Field.notNullable("created_at", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"))));

    private final TableRef ref;
    private final TableStorage tables;

    public RecoveryAudit(String root, TableStorage tables) {
        this.ref = TableRef.main(root + "/" + DIRECTORY);
        this.tables = tables;
    }

    /** Appends {@code record} unless a row for its operation already exists. */
    public Mono<Void> record(RecoveryRecord record) {
        return tables.open(ref, OptionalLong.empty())
                .onErrorResume(NotFound.class, absent -> tables.create(ref.path(), SCHEMA))
                .flatMap(snapshot -> tables.count(snapshot, Optional.of(SqlLiterals.eq("operation_id", record.operationId())))
                        .flatMap(existing -> existing > 0 ? Mono.<Void>empty()
                                : tables.stageAppend(snapshot, List.of(toRow(record)), Map.of())
                                        .flatMap(tables::commitStaged).then()));
    }

    /**
     * Appends every record whose operation has no row yet, in one commit: the bulk sweep's single audit append.
     * Like {@link #record}, re-running it after a crash records each operation exactly once.
     */
    public Mono<Void> recordAll(List<RecoveryRecord> records) {
        if (records.isEmpty()) {
            return Mono.empty();
        }
        List<String> ids = records.stream().map(RecoveryRecord::operationId).toList();
        return tables.open(ref, OptionalLong.empty())
                .onErrorResume(NotFound.class, absent -> tables.create(ref.path(), SCHEMA))
                .flatMap(snapshot -> tables.scan(snapshot, ScanRequest.where(SqlLiterals.inList("operation_id", ids))
                                .withColumns(List.of("operation_id")))
                        .flatMapIterable(RowBatch::rows)
                        .map(row -> (String) row.get("operation_id"))
                        .collect(java.util.stream.Collectors.toSet())
                        .flatMap(recorded -> {
                            List<Map<String, Object>> rows = records.stream()
                                    .filter(record -> !recorded.contains(record.operationId()))
                                    .map(RecoveryAudit::toRow).toList();
                            return rows.isEmpty() ? Mono.<Void>empty()
                                    : tables.stageAppend(snapshot, rows, Map.of()).flatMap(tables::commitStaged).then();
                        }));
    }

    /** Every audit row, oldest first; empty when no recovery ever ran. */
    public Flux<RecoveryRecord> list() {
        return tables.open(ref, OptionalLong.empty())
                .flatMapMany(snapshot -> tables.scan(snapshot, ScanRequest.all()))
                .onErrorResume(NotFound.class, absent -> Flux.empty())
                .flatMapIterable(RowBatch::rows)
                .map(RecoveryAudit::fromRow)
                .sort(java.util.Comparator.comparing(RecoveryRecord::createdAt).thenComparing(RecoveryRecord::operationId));
    }

    private static Map<String, Object> toRow(RecoveryRecord record) {
        Map<String, Object> row = new HashMap<>();
        row.put("graph_commit_id", record.graphCommitId().orElse(null));
        row.put("recovery_kind", record.kind().name());
        row.put("recovery_for_actor", record.recoveryForActor().orElse(null));
        row.put("operation_id", record.operationId());
        row.put("sidecar_writer_kind", record.sidecarWriterKind());
        try {
            row.put("per_table_outcomes_json", JSON.writeValueAsString(record.tables()));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        row.put("created_at", record.createdAt());
        return row;
    }

    private static RecoveryRecord fromRow(Map<String, Object> row) {
        try {
            List<RecoveryRecord.TableOutcome> outcomes = JSON.readValue((String) row.get("per_table_outcomes_json"),
                    new TypeReference<List<RecoveryRecord.TableOutcome>>() { });
            return new RecoveryRecord(Optional.ofNullable((String) row.get("graph_commit_id")),
                    RecoveryRecord.Kind.valueOf((String) row.get("recovery_kind")),
                    Optional.ofNullable((String) row.get("recovery_for_actor")), (String) row.get("operation_id"),
                    (String) row.get("sidecar_writer_kind"), outcomes, (Instant) row.get("created_at"));
        } catch (IOException e) {
            throw new StorageFault("corrupt recovery audit row for " + row.get("operation_id"), e);
        }
    }
}

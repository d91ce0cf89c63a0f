package dev.omnigraph.recovery;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Objects;

/**
 * A recovery sidecar ({@code __recovery/<operation_id>.json}): the write-ahead intent a writer makes durable
 * before its first physical effect, so that a crash at any instant can be rolled forward or back exactly.
 * Field names follow the reference format (snake_case on disk, {@code schema_version} 9).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Sidecar(int schemaVersion, String operationId, String startedAt, String branch, String actorId,
                      WriterKind writerKind, List<TablePin> tables, ProtocolV3 protocolV3) {
    public static final int SCHEMA_VERSION = 9;

    public Sidecar {
        Objects.requireNonNull(operationId, "operationId");
        Objects.requireNonNull(writerKind, "writerKind");
        tables = tables == null ? List.of() : List.copyOf(tables);
    }

    public enum WriterKind { Mutation, Load, SchemaApply, BranchMerge, EnsureIndices, Optimize }

    public enum EffectPhase { Armed, EffectsConfirmed }

    /** The stable identity of a table (type id + incarnation id). */
    public record Identity(long stableTableId, long tableIncarnationId) {
    }

    /**
     * One table a writer touches: where it lives, the pin it expects, and the pin it will leave. {@code
     * compactedVersion} is set by Optimize only: where its compaction ends and its index builds begin (absent:
     * the range holds compaction only).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TablePin(Identity identity, String tableKey, String tablePath, long expectedVersion,
                           long postCommitPin, Long confirmedVersion, String tableBranch, Long compactedVersion) {
        public TablePin(Identity identity, String tableKey, String tablePath, long expectedVersion, long postCommitPin,
                        Long confirmedVersion, String tableBranch) {
            this(identity, tableKey, tablePath, expectedVersion, postCommitPin, confirmedVersion, tableBranch, null);
        }
    }

    /**
     * A Lance transaction identity: its read version and its uuid, or, for a transaction named before it was staged
     * (armed beside staging), the intent id stored with it as a transaction property and no uuid.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Txn(long readVersion, String uuid, String intent) {
        public Txn(long readVersion, String uuid) {
            this(readVersion, uuid, null);
        }

        /** A transaction not staged yet, named by the intent id it will carry. */
        public static Txn planned(long readVersion, String intent) {
            return new Txn(readVersion, null, intent);
        }

        /** The identity Lance recorded (or staged), with its intent id if it carries one. */
        /**
         * The intent id is kept only where there is no uuid: a uuid decides {@link #identifies} alone, and a sidecar
         * naming its transactions by uuid keeps the shape an older build can read.
         */
        public static Txn of(dev.omnigraph.storage.TransactionIdentity identity) {
            return identity.uuid() != null ? new Txn(identity.readVersion(), identity.uuid())
                    : new Txn(identity.readVersion(), null, identity.intent());
        }

        /**
         * True when {@code found} (read back from a table's history, or staged) is this transaction: the same read
         * version and the same uuid, or, when this names no uuid, the same intent id (a Txn naming neither, as a
         * schema apply's version-one Create does, identifies nothing). The one rule for both.
         */
        public boolean identifies(dev.omnigraph.storage.TransactionIdentity found) {
            return found.readVersion() == readVersion
                    && (uuid != null ? uuid.equals(found.uuid()) : intent != null && intent.equals(found.intent()));
        }
    }

    /** The branch identity a token captured (null parent = main). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record BranchIdentifier(String name, String parent, long parentVersion, long createdAt) {
    }

    /**
     * The authority a write was planned against; recovery never rolls forward once it has moved. {@code writerEpoch}
     * is the writer epoch the branch's stamp carried when the token was captured (null: a sidecar of an older build):
     * once another tenure fenced the manifest (a takeover raises every stamp), the intent is never rolled forward,
     * since its writer may still be running, unfenced, on the tables; it is rolled back instead.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Authority(BranchIdentifier branchIdentifier, String graphHead, String schemaIrHash,
                            String schemaIdentityDomain, Long writerEpoch) {
        public Authority(BranchIdentifier branchIdentifier, String graphHead, String schemaIrHash,
                         String schemaIdentityDomain) {
            this(branchIdentifier, graphHead, schemaIrHash, schemaIdentityDomain, null);
        }

        /** The writer tenure still holds the manifest: no other tenure fenced it since this intent was armed. */
        public boolean sameTenure(long liveEpoch) {
            return writerEpoch == null || writerEpoch == liveEpoch;
        }
    }

    /** The commit this write publishes; fixed before any effect and never re-parented. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Lineage(String graphCommitId, String branch, String actorId, long createdAt,
                          String mergedParentCommitId, String operation, Idempotency idempotency) {
        /** A lineage without an idempotency record. */
        public Lineage(String graphCommitId, String branch, String actorId, long createdAt,
                       String mergedParentCommitId, String operation) {
            this(graphCommitId, branch, actorId, createdAt, mergedParentCommitId, operation, null);
        }
    }

    /** The idempotency record a keyed write publishes with its commit; a roll-forward publishes it too. */
    public record Idempotency(String key, String requestHash, long affectedNodes, long affectedEdges,
                              java.util.Map<String, Long> entitiesByTable) {
    }

    /**
     * One table's effect. {@code indexes} is set by EnsureIndices only: the names of the indexes it builds on the
     * table, in build order (an index build cannot be staged, so it has no planned transaction).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Effect(Identity identity, String tableKey, Txn plannedTransaction, Txn confirmedTransaction,
                         List<String> indexes, Chain chain) {
        public Effect(Identity identity, String tableKey, Txn plannedTransaction, Txn confirmedTransaction) {
            this(identity, tableKey, plannedTransaction, confirmedTransaction, null, null);
        }

        public Effect(Identity identity, String tableKey, Txn plannedTransaction, Txn confirmedTransaction,
                      List<String> indexes) {
            this(identity, tableKey, plannedTransaction, confirmedTransaction, indexes, null);
        }
    }

    /**
     * A table effect made of {@code length} exact transactions (a chunked merge), declared before the first one:
     * chunk {@code i} (1-based) is the transaction at the pin's expected version + i, read at the version before
     * it, whose transaction property {@link #PROPERTY} is {@link #mark}{@code (i)}. {@code plannedTransaction}
     * then names chunk 1 (absent on a first-touch fork) and {@code confirmedTransaction} the last.
     */
    public record Chain(String id, int length) {
        /** The Lance transaction property that carries a chunk's mark. */
        public static final String PROPERTY = "omnigraph.chunk";

        public Chain {
            Objects.requireNonNull(id, "id");
            if (length < 2) {
                throw new IllegalArgumentException("a chain has at least two chunks, got " + length);
            }
        }

        /** The mark of chunk {@code i} (1-based). */
        public String mark(int i) {
            return id + ":" + i;
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Confirmed(long tableVersion, String tableBranch, long rowCount) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TableUpdate(Identity identity, String tableKey, long expectedVersion, String tableBranch,
                              Confirmed confirmed) {
    }

    public record IntendedDelta(List<TableUpdate> tableUpdates) {
        public IntendedDelta {
            tableUpdates = List.copyOf(tableUpdates);
        }
    }

    /** A restore recovery committed (or is about to) to undo one table's effect; recorded before it runs. */
    public record RollbackRestore(String tableKey, long toVersion, Txn restoreTransaction) {
    }

    /**
     * The exact-effect payload of mutations and loads. {@code rollbackRestores} is written by recovery before its
     * first restore, so that a recovery interrupted half-way recognises its own restores on re-entry.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record ProtocolV3(Authority authority, Lineage lineage, String rollbackGraphCommitId,
                             EffectPhase effectPhase, List<Effect> effects, IntendedDelta intendedDelta,
                             List<RollbackRestore> rollbackRestores) {
        public ProtocolV3 {
            effects = List.copyOf(effects);
            rollbackRestores = rollbackRestores == null ? null : List.copyOf(rollbackRestores);
        }

        public ProtocolV3 withRollbackRestores(List<RollbackRestore> restores) {
            return new ProtocolV3(authority, lineage, rollbackGraphCommitId, effectPhase, effects, intendedDelta, restores);
        }
    }

    /** This sidecar with its payload replaced (e.g. moved to EffectsConfirmed). */
    public Sidecar withPayload(List<TablePin> newTables, ProtocolV3 payload) {
        return new Sidecar(schemaVersion, operationId, startedAt, branch, actorId, writerKind, newTables, payload);
    }
}

package dev.omnigraph.engine.write;

import dev.omnigraph.recovery.Sidecar;
import dev.omnigraph.storage.manifest.IdempotencyRecord;
import java.util.Optional;

/**
 * What the protocol steps after planning publish, whether one write or a group: branch, actor, writer kind,
 * the commit's operation text, the failpoint prefix, the precondition still to recheck under the gates, and the
 * idempotency record (with its own write's counts) the commit row carries, and a merge's second parent.
 */
record Publication(String branch, Optional<String> actorId, Sidecar.WriterKind writerKind, String operation,
                   String failpointPrefix, Optional<String> ifGraphCommit, Optional<IdempotencyRecord> idempotency,
                   Optional<String> mergedParent) {
}

/**
 * The write pipeline: validation, staging, sidecar arming, commit, manifest publish, recovery and idempotency.
 * <b>Internal</b>, except the values the facade hands out or takes: {@link dev.omnigraph.engine.write.WriteOutcome},
 * {@link dev.omnigraph.engine.write.WriteLimits} and {@link dev.omnigraph.engine.write.IdempotencySettings}. {@code WriteContext}, {@code RecoveryCoordinator} and
 * {@code IdempotencyIndex} are public only because the facade, the mutation and load writers and the HTTP edge use
 * them across packages.
 */
package dev.omnigraph.engine.write;

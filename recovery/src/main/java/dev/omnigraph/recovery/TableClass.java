package dev.omnigraph.recovery;

/**
 * What recovery finds on one table a sidecar pinned, from its live HEAD {@code H}, its published pin {@code P}
 * and the sidecar's expected version {@code E} and planned transaction.
 */
enum TableClass {
    /** {@code H == P == E}: the write never landed here. */
    NO_MOVEMENT,
    /** {@code H == E + 1} and that version is exactly the planned transaction. */
    OWN_AT_HEAD,
    /** {@code H == E + 2}: the planned effect, then this sidecar's own recorded restore. */
    OWN_COMPENSATED,
    /** Anything else: another writer's versions, or a pin that moved without this sidecar's commit. */
    FOREIGN,
    /** {@code H < P}: the table is behind what the manifest publishes; nothing can be decided safely. */
    INVARIANT_VIOLATION
}

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
    /**
     * A chained effect ({@code Sidecar.Chain}) only: {@code E < H < E + length}, every version a contiguous prefix
     * of the declared chain. Rolled back like {@link #OWN_AT_HEAD}, never forward.
     */
    OWN_PREFIX,
    /** {@code H == E + 2}: the planned effect, then this sidecar's own recorded restore (after a chain's prefix). */
    OWN_COMPENSATED,
    /** Anything else: another writer's versions, or a pin that moved without this sidecar's commit. */
    FOREIGN,
    /** {@code H < P}: the table is behind what the manifest publishes; nothing can be decided safely. */
    INVARIANT_VIOLATION
}

package dev.omnigraph.recovery;

import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.TableDelta;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Which already-visible outcome an exact sidecar proves, from the commits its branch shows under its two pre-minted
 * ids: its own commit (the write landed) or its rollback commit (a recovery undid it). A sidecar is finalized only
 * on the commit it proves: its own commit must carry exactly the write's intended delta (the same tables, each from
 * its expected pin, each confirmed version where the sidecar confirmed one); a rollback commit may restore only the
 * sidecar's tables from their pins. Both visible, or a visible commit with another delta, is an
 * {@link #INVARIANT_VIOLATION}: recovery refuses it and keeps the sidecar for an operator, never picking a side.
 */
final class VisibleOutcome {
    /** The word every refusal of an impossible state starts with, so operators and tests can tell it apart. */
    static final String INVARIANT_VIOLATION = "InvariantViolation";

    /** What the visible commits prove. */
    sealed interface Proof {
        /** Neither outcome is visible: classify the tables. */
        record Undecided() implements Proof {
        }

        record Forward(GraphCommit commit) implements Proof {
        }

        record Back(GraphCommit commit) implements Proof {
        }

        record Violation(String reason) implements Proof {
        }
    }

    private VisibleOutcome() {
    }

    static Proof of(Sidecar sidecar, Optional<GraphCommit> original, Optional<GraphCommit> rollback) {
        if (original.isPresent() && rollback.isPresent()) {
            return new Proof.Violation(INVARIANT_VIOLATION + ": both its commit " + original.get().id()
                    + " and its rollback commit " + rollback.get().id() + " are visible");
        }
        if (original.isPresent()) {
            Optional<String> mismatch = forwardMismatch(sidecar, original.get());
            return mismatch.<Proof>map(reason -> new Proof.Violation(INVARIANT_VIOLATION + ": its commit "
                    + original.get().id() + " is visible but " + reason)).orElseGet(() -> new Proof.Forward(original.get()));
        }
        if (rollback.isPresent()) {
            Optional<String> mismatch = rollbackMismatch(sidecar, rollback.get());
            return mismatch.<Proof>map(reason -> new Proof.Violation(INVARIANT_VIOLATION + ": its rollback commit "
                    + rollback.get().id() + " is visible but " + reason)).orElseGet(() -> new Proof.Back(rollback.get()));
        }
        return new Proof.Undecided();
    }

    /** Why {@code commit} is not exactly the write {@code sidecar} intended, or empty when it is. */
    static Optional<String> forwardMismatch(Sidecar sidecar, GraphCommit commit) {
        Map<String, Sidecar.TableUpdate> intended = sidecar.protocolV3().intendedDelta().tableUpdates().stream()
                .collect(Collectors.toMap(Sidecar.TableUpdate::tableKey, Function.identity(), (a, b) -> a, TreeMap::new));
        Map<String, TableDelta> landed = commit.deltas().stream()
                .collect(Collectors.toMap(TableDelta::tableKey, Function.identity(), (a, b) -> a, TreeMap::new));
        if (!intended.keySet().equals(landed.keySet())) {
            return Optional.of("it moved " + landed.keySet() + " where the write intended " + intended.keySet());
        }
        for (Map.Entry<String, TableDelta> entry : landed.entrySet()) {
            Sidecar.TableUpdate update = intended.get(entry.getKey());
            TableDelta delta = entry.getValue();
            boolean fromPin = delta.fromVersion() == update.expectedVersion();
            boolean toConfirmed = update.confirmed() == null ? delta.toVersion() > delta.fromVersion()
                    : delta.toVersion() == update.confirmed().tableVersion();
            if (!fromPin || !toConfirmed) {
                return Optional.of(entry.getKey() + " moved " + delta.fromVersion() + " → " + delta.toVersion()
                        + " where the write intended " + update.expectedVersion() + " → "
                        + (update.confirmed() == null ? "its own commit" : update.confirmed().tableVersion()));
            }
        }
        return Optional.empty();
    }

    /** Why {@code commit} did not restore only this sidecar's tables from their pins, or empty when it did. */
    static Optional<String> rollbackMismatch(Sidecar sidecar, GraphCommit commit) {
        Map<String, TablePin> pins = sidecar.tables().stream()
                .collect(Collectors.toMap(TablePin::tableKey, Function.identity(), (a, b) -> a));
        for (TableDelta delta : commit.deltas()) {
            TablePin pin = pins.get(delta.tableKey());
            if (pin != null && delta.fromVersion() != pin.expectedVersion()) {
                return Optional.of("it moved " + delta.tableKey() + " from " + delta.fromVersion()
                        + ", not from the write's pin " + pin.expectedVersion());
            }
        }
        return Optional.empty();
    }
}

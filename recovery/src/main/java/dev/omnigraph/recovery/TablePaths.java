package dev.omnigraph.recovery;

import dev.omnigraph.recovery.Sidecar.TablePin;
import dev.omnigraph.storage.TableRef;
import dev.omnigraph.storage.error.StorageFault;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The one rule for the table paths in sidecars. A sidecar records each table by its dataset path relative to the
 * graph root, as the manifest registers it ({@code nodes/<type id>-<incarnation>}, {@code edges/…}), so a root copied
 * or moved with pending sidecars (a backup, a container volume, a copy made to reproduce a bug) recovers its own
 * tables and never another root's. Recovery resolves a recorded path against {@link #root}, the root the sidecar was
 * read from, and nothing else:
 * <ul>
 *   <li>a relative path is taken under the root when it is exactly the location the pin's table key and identity
 *       name ({@code nodes|edges/<type id>-<incarnation>}), which is all a writer ever records;</li>
 *   <li>an absolute path ({@code /…}, {@code s3://…}) was recorded by a build before this rule, under the root it
 *       was made in. It is read by its position relative to that root, which is the table's place in the layout:
 *       it must end with {@code /<dir>/<type id>-<incarnation>}, the location the pin's table key and identity name
 *       (the layout {@code CatalogTable.datasetPath} makes), and that location is taken under this root. What comes
 *       before it is never used;</li>
 *   <li>anything else is refused ({@link #refusal}): recovery fails with {@code RecoveryRequired}, touching
 *       nothing, and the sidecar is kept for an operator.</li>
 * </ul>
 */
public record TablePaths(String root) {
    private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");

    public TablePaths {
        Objects.requireNonNull(root, "root");
    }

    /**
     * The path a writer records for the dataset at {@code location} (relative to the root, as the manifest entry or
     * the catalog names it); refuses a location that is not inside the root.
     */
    public static String recorded(String location) {
        if (!inside(location)) {
            throw new IllegalArgumentException("a sidecar records table paths relative to the graph root, not " + location);
        }
        return location;
    }

    /** Why {@code sidecar} cannot be recovered under this root (the first table path that is not inside it), or empty. */
    public Optional<String> refusal(Sidecar sidecar) {
        for (TablePin pin : sidecar.tables()) {
            if (relative(pin).isEmpty()) {
                return Optional.of("its table path " + pin.tablePath() + " for " + pin.tableKey() + " is not a table "
                        + "of this graph's root " + root);
            }
        }
        return Optional.empty();
    }

    /**
     * Where the dataset {@code pin} names lives under this root. Every recovery path checks {@link #refusal} before
     * it touches a table, so a pin that is not inside the root here is a bug: a {@code StorageFault}.
     */
    public String resolve(TablePin pin) {
        return root + "/" + relative(pin).orElseThrow(() -> new StorageFault("table path " + pin.tablePath() + " of "
                + pin.tableKey() + " is not inside " + root + " (recovery checks TablePaths.refusal first)", null));
    }

    /** The Lance ref {@code pin} writes: its dataset under this root, on the pin's table branch. */
    public TableRef ref(TablePin pin) {
        return new TableRef(resolve(pin), Optional.ofNullable(pin.tableBranch()));
    }

    /** {@code pin}'s path relative to the root it was recorded under, or empty when it names none there. */
    public static Optional<String> relative(TablePin pin) {
        String path = pin.tablePath();
        if (path == null) {
            return Optional.empty();
        }
        if (path.startsWith("/") || SCHEME.matcher(path).find()) {
            return layoutLocation(pin).filter(location -> path.endsWith("/" + location));
        }
        // Inside the root is not enough: a path naming another table (or __manifest) would point recovery's restores
        // and drops at data the pin does not own. A writer records exactly the layout location, so nothing else passes.
        return layoutLocation(pin).filter(path::equals);
    }

    /** The location the layout gives {@code pin}'s table: {@code nodes|edges/<type id>-<incarnation>}, 16 hex digits each. */
    static Optional<String> layoutLocation(TablePin pin) {
        String key = pin.tableKey() == null ? "" : pin.tableKey();
        String dir = key.startsWith("node:") ? "nodes" : key.startsWith("edge:") ? "edges" : null;
        if (dir == null || pin.identity() == null) {
            return Optional.empty();
        }
        return Optional.of(dir + "/" + String.format("%016x-%016x", pin.identity().stableTableId(),
                pin.identity().tableIncarnationId()));
    }

    private static boolean inside(String path) {
        if (path == null || path.isEmpty() || path.startsWith("/") || path.contains("\\") || SCHEME.matcher(path).find()) {
            return false;
        }
        for (String segment : path.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                return false;
            }
        }
        return true;
    }
}

package dev.omnigraph.storage.manifest;

import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.Ulid;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** A small manifest with two registered tables, for publisher and store tests. */
final class ManifestFixture {
    static final TableEntry PERSON = new TableEntry("node:Person", 1, 3, "nodes/0000000000000001-0000000000000003",
            2, Optional.empty(), 0, false);
    static final TableEntry KNOWS = new TableEntry("edge:Knows", 2, 4, "edges/0000000000000002-0000000000000004",
            2, Optional.empty(), 0, false);

    private ManifestFixture() {
    }

    static GraphCommit init(ManifestStore store) {
        return store.create(List.of(PERSON, KNOWS), Ulid.next(), micros()).block();
    }

    static long micros() {
        return System.currentTimeMillis() * 1000;
    }

    /** A request moving {@code table} from {@code from} to {@code to} on {@code branch}. */
    static PublishRequest move(String branch, ExpectedHead head, TableEntry table, long from, long to) {
        return new PublishRequest(branch, head, Optional.empty(), Map.of(table.tableKey(), from),
                List.of(table.pinnedAt(to, Optional.empty(), to * 10)), Ulid.next(), Optional.empty(),
                Optional.of("tester"), micros(), "mutation");
    }

    static ManifestStore store(String root, TableStorage tables) {
        return new ManifestStore(root, tables);
    }
}

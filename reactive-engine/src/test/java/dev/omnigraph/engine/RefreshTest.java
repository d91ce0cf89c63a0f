package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.manifest.BranchIdentity;
import dev.omnigraph.storage.testing.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A long-lived handle (the server's) picks up what another handle of the process, or another process, did —
 * data, schema changes and branches — on its next read or write, without being reopened.
 */
class RefreshTest extends ConstrainedGraphTest {
    static final String EVOLVED = GraphTestSupport.CONSTRAINED.replace("seen: DateTime?", "seen: DateTime?\n    nick: String?");
    static final String QUERIES = """
            query add($name: String, $nick: String) { insert Person { name: $name, nick: $nick } }
            query nicks() { match { $p: Person } return { $p.name, $p.nick } order { $p.name asc } }
            """;

    List<List<Object>> nicks(Omnigraph handle, ReadTarget target) {
        return handle.query(target, QUERIES, "nicks", Map.of()).block().rows().collectList().block();
    }

    @Test
    void aSchemaChangeByAnotherHandleReachesThisOneOnItsNextReadAndWrite() {
        try (Omnigraph other = Omnigraph.open(services, dir.resolve("g"), OpenMode.READ_WRITE).block()) {
            other.applySchema(EVOLVED, false, Optional.empty()).block();
        }

        graph.mutate("main", QUERIES, "add", Map.of("name", "Ada", "nick", "A"), WriteOptions.DEFAULT).block();
        assertThat(nicks(graph, ReadTarget.main())).containsExactly(List.of("Ada", "A"));
        assertThat(graph.catalog().node("Person").orElseThrow().toString()).contains("nick");
    }

    @Test
    void aReadOnlyHandleSeesAnotherProcesssSchemaDataAndBranchesOnItsNextRead() throws Exception {
        Path root = dir.resolve("g");
        graph.close(); // the other process needs the writer lock
        try (Omnigraph reader = Omnigraph.open(services, root, OpenMode.READ_ONLY).block()) {
            assertThat(reader.branches().list().block()).extracting(BranchIdentity::name).containsExactly("main");

            ChildJvm.Finished child = ChildJvm.run(RefreshWriterMain.class, dir.resolve("tmp"), List.of(root.toString()), List.of(), java.time.Duration.ofSeconds(120));
            String output = child.output();
            assertThat(output).as(output).contains("DONE");

            assertThat(nicks(reader, ReadTarget.main())).containsExactly(List.of("Ada", "A"));
            assertThat(reader.branches().list().block()).extracting(BranchIdentity::name).containsExactly("main", "side");
            assertThat(nicks(reader, ReadTarget.branch("side"))).containsExactly(List.of("Ada", "A"));
        }
    }
}

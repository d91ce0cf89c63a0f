package dev.omnigraph.engine.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.manifest.ManifestState;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

class GraphExporterTest extends SeededReadGraph {
    List<String> export(Omnigraph g, ManifestState state, Set<String> types) {
        return new GraphExporter(services.tables(), g.root().toString(), g.catalog()).export(state, types).collectList().block();
    }

    @Test
    void exportsNodesThenEdgesInTheLoadFormat() {
        List<String> lines = export(graph, ReadFixture.head(graph), null);
        assertThat(lines).hasSize(10 + 11);
        assertThat(lines.subList(0, 3)).allMatch(l -> l.startsWith("{\"type\":\"Company\""));
        assertThat(lines.subList(3, 4)).allMatch(l -> l.startsWith("{\"type\":\"Note\""));
        assertThat(lines.subList(4, 10)).allMatch(l -> l.startsWith("{\"type\":\"Person\""));
        assertThat(lines.subList(10, 17)).allMatch(l -> l.startsWith("{\"edge\":\"Knows\""));
        assertThat(lines.subList(17, 21)).allMatch(l -> l.startsWith("{\"edge\":\"WorksAt\""));
        assertThat(lines).contains(
                "{\"type\":\"Person\",\"data\":{\"id\":\"Ann\",\"name\":\"Ann\",\"age\":30,\"nickName\":\"annie\",\"tags\":[\"a\",\"b\"],"
                        + "\"born\":\"1990-05-01\",\"seen\":\"2024-03-01T10:00:00.250Z\",\"score\":1.5,\"rating\":0.1,"
                        + "\"big\":18446744073709551615,\"level\":\"senior\",\"vec\":[0.5,1.25]}}",
                "{\"type\":\"Person\",\"data\":{\"id\":\"Dan\",\"name\":\"Dan\",\"nickName\":\"D'Artagnan\"}}",
                "{\"type\":\"Person\",\"data\":{\"id\":\"Cid\",\"name\":\"Cid\",\"age\":35,\"tags\":[],\"born\":\"1985-01-01\",\"score\":-1.0,\"level\":\"senior\"}}",
                "{\"edge\":\"Knows\",\"from\":\"Ann\",\"to\":\"Bob\",\"data\":{\"id\":\"k1\",\"since\":\"2020-01-01\",\"weight\":0.9}}",
                "{\"edge\":\"WorksAt\",\"from\":\"Eve\",\"to\":\"Initech\",\"data\":{\"id\":\"w4\"}}",
                "{\"type\":\"Note\",\"data\":{\"id\":\"n1\",\"text\":\"hello\",\"stars\":3}}");
    }

    @Test
    void exportLoadedIntoAFreshGraphReproducesIt() {
        List<String> first = export(graph, ReadFixture.head(graph), Set.of());
        Omnigraph copy = Omnigraph.init(services, dir.resolve("copy"), ReadFixture.SCHEMA).block();
        ReadFixture.load(copy, LoadMode.APPEND, first);
        List<String> second = export(copy, ReadFixture.head(copy), Set.of());
        assertThat(second).containsExactlyElementsOf(first);
        // and the copy answers queries identically, whole nodes included
        String q = "query q() { match { $p: Person  $p $k:knows $f } return { $p, $k.id, $k.since, $f } order { $k.id } }";
        assertThat(ReadFixture.run(copy, services, ReadFixture.head(copy), q, Map.of()).rows().collectList().block())
                .isEqualTo(ReadFixture.run(graph, services, ReadFixture.head(graph), q, Map.of()).rows().collectList().block())
                .hasSize(7);
    }

    @Test
    void exportCanBeLimitedToSomeTypes() {
        List<String> lines = export(graph, ReadFixture.head(graph), Set.of("Company", "worksAt"));
        assertThat(lines).hasSize(3 + 4);
        assertThat(lines.get(0)).isEqualTo("{\"type\":\"Company\",\"data\":{\"id\":\"Acme\",\"name\":\"Acme\",\"founded\":1990}}");
        assertThat(lines.subList(3, 7)).allMatch(l -> l.startsWith("{\"edge\":\"WorksAt\""));
        assertThatThrownBy(() -> export(graph, ReadFixture.head(graph), Set.of("Robot")))
                .isInstanceOf(BadRequest.class).hasMessageContaining("Robot");
    }

    @Test
    void exportOfAnOlderCommitAndBackpressure() {
        String first = graph.snapshot(ReadTarget.main()).block().graphCommitId().orElseThrow();
        ReadFixture.load(graph, LoadMode.APPEND, List.of("{\"type\":\"Company\",\"data\":{\"name\":\"Umbrella\",\"founded\":1968}}"));
        ManifestState old = graph.snapshot(ReadTarget.commit(first)).block().manifest();
        assertThat(export(graph, old, Set.of("Company"))).hasSize(3);
        assertThat(export(graph, ReadFixture.head(graph), Set.of("Company"))).hasSize(4);
        StepVerifier.create(new GraphExporter(services.tables(), graph.root().toString(), graph.catalog())
                        .export(ReadFixture.head(graph), null), 0)
                .expectSubscription()
                .expectNoEvent(java.time.Duration.ofMillis(200))
                .thenRequest(2)
                .expectNextCount(2)
                .thenCancel()
                .verify();
    }
}

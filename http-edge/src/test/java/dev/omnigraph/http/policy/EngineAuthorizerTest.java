package dev.omnigraph.http.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.SchemaOperations;
import dev.omnigraph.engine.BranchOperations;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.engine.merge.MergeResult;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.storage.error.Forbidden;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The engine's writers, opened through the library with a policy as authorizer, refuse what the policy denies. */
class EngineAuthorizerTest {
    @TempDir
    Path dir;
    final HttpFixture fixture = new HttpFixture();

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void writersAskTheAuthorizerFirst() {
        Path root = dir.resolve("g");
        Omnigraph created = fixture.init(root);
        created.branches().create("feature").block();
        created.closeAsync().block(Duration.ofSeconds(30));
        CedarPolicy policy = CedarPolicy.compile(BundleReader.parse(PolicyBundleTest.AGENTS, "agents.yaml"));
        Omnigraph graph = Omnigraph.at(root).services(fixture.services)
                .authorizer(PolicyAuthorizer.of(policy, "g")).open(OpenMode.READ_WRITE).block(Duration.ofSeconds(60));
        try {
            WriteOptions agent = WriteOptions.DEFAULT.actor("act-research-agent");
            Map<String, Object> ada = Map.of("name", "Ada");
            assertThat(graph.mutate("feature", HttpFixture.QUERIES, "addPerson", ada, agent).block().commit()).isPresent();
            String mainHead = graph.commits("main").blockFirst().id();
            assertThatThrownBy(() -> graph.mutate("main", HttpFixture.QUERIES, "addPerson", ada, agent).block())
                    .isInstanceOf(Forbidden.class).hasMessageContaining("change").hasMessageContaining("branch 'main'");
            assertThatThrownBy(() -> graph.mutate("feature", HttpFixture.QUERIES, "addPerson", ada, WriteOptions.DEFAULT).block())
                    .as("no actor: fails closed").isInstanceOf(Forbidden.class);
            assertThatThrownBy(() -> graph.branches().merge(BranchOperations.Merge.of("feature", "main")
                    .actor("act-research-agent")).block()).isInstanceOf(Forbidden.class)
                    .hasMessageContaining("branch_merge");
            assertThatThrownBy(() -> graph.schema().apply(new SchemaOperations.Apply(HttpFixture.SCHEMA
                    .replace("bio: String?", "bio: String?\n    nick: String?"), false, Optional.of("act-research-agent"))).block())
                    .isInstanceOf(Forbidden.class).hasMessageContaining("schema_apply");
            assertThat(graph.commits("main").blockFirst().id()).as("main unchanged").isEqualTo(mainHead);
            MergeResult landed = graph.branches().merge(BranchOperations.Merge.of("feature", "main")
                    .actor("act-andrew")).block();
            assertThat(landed).isNotNull();
            assertThat(graph.commits("main").blockFirst().id()).isNotEqualTo(mainHead);
        } finally {
            graph.closeAsync().block(Duration.ofSeconds(30));
        }
    }
}

package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.http.testing.HttpFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code schema plan|apply|show} through the CLI on a seeded graph. */
class SchemaCliTest extends SeededCliGraph {
    @Test
    void planChangesNothingApplyNeedsTheFlagForLossShowPrintsTheSource() throws Exception {
        Path next = Files.writeString(dir.resolve("next.pg"), HttpFixture.SCHEMA.replace("    bio: String?\n", "")
                .replace("age: I32?", "age: I32?\n    nickname: String?"));
        CliRun plan = CliRun.ok(services, "schema", "plan", "--schema", next.toString(), root.toString(), "--json");
        assertThat(plan.json().path("step_count").asInt()).isEqualTo(2);
        assertThat(plan.json().path("loses_data").asBoolean()).isTrue();
        assertThat(CliRun.ok(services, "schema", "show", root.toString()).out()).isEqualTo(HttpFixture.SCHEMA);

        CliRun refused = CliRun.run(services, "schema", "apply", "--schema", next.toString(), root.toString());
        assertThat(refused.code()).isNotZero();
        assertThat(refused.err()).contains("--allow-data-loss");

        CliRun applied = CliRun.ok(services, "schema", "apply", "--schema", next.toString(), "--allow-data-loss",
                root.toString(), "--json");
        assertThat(applied.json().path("applied").asBoolean()).isTrue();
        assertThat(CliRun.ok(services, "schema", "show", root.toString()).out()).isEqualTo(Files.readString(next));
        CliRun again = CliRun.ok(services, "schema", "apply", "--schema", next.toString(), root.toString());
        assertThat(again.out()).contains("nothing to apply");
    }
}

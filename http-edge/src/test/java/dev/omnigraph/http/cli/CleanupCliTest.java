package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/** {@code omnigraph cleanup}: refuses without a retention flag, previews by default, deletes with --confirm. */
class CleanupCliTest extends SeededCliGraph {

    @Test
    void previewsThenDeletesAndReportsWhatWent() {
        JsonNode preview = CliRun.ok(services, "cleanup", root.toString(), "--keep", "1", "--json").json();
        assertThat(preview.get("confirmed").asBoolean()).isFalse();
        assertThat(preview.get("versions").asLong()).isPositive();
        assertThat(preview.get("bytes").asLong()).isPositive();

        JsonNode done = CliRun.ok(services, "cleanup", root.toString(), "--keep", "1", "--confirm", "--json").json();
        assertThat(done.get("confirmed").asBoolean()).isTrue();
        assertThat(done.get("tables")).isEqualTo(preview.get("tables"));

        CliRun again = CliRun.ok(services, "cleanup", root.toString(), "--older-than", "1d");
        assertThat(again.out()).contains("would remove 0 version(s), 0 file(s), 0 bytes, 0 orphaned fork(s)");
        CliRun.ok(services, "snapshot", root.toString());
    }

    @Test
    void refusesWithoutARetentionRuleOrWithABadAge() {
        CliRun none = CliRun.run(services, "cleanup", root.toString(), "--confirm");
        assertThat(none.code()).isEqualTo(OmnigraphCli.ERROR);
        assertThat(none.err()).contains("--keep N and/or --older-than D");

        CliRun badAge = CliRun.run(services, "cleanup", root.toString(), "--older-than", "a week");
        assertThat(badAge.code()).isEqualTo(OmnigraphCli.ERROR);
        assertThat(badAge.err()).contains("--older-than").contains("7d");
    }
}

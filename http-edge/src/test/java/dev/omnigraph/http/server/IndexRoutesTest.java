package dev.omnigraph.http.server;

import static dev.omnigraph.http.testing.HttpFixture.PEOPLE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code POST /indexes/ensure} over real HTTP on loopback: builds once, then a no-op; on a branch; refusals. */
class IndexRoutesTest extends SeededSocialServer {

    @Test
    void ensureBuildsTheKeyIndexesOnceThenIsANoOp() {
        Reply first = http.postJson(G + "/indexes/ensure", "{}");
        assertThat(first.status()).as(first.toString()).isEqualTo(200);
        assertThat(first.json().path("branch").asText()).isEqualTo("main");
        assertThat(first.json().path("built").path("node:Person").toString()).isEqualTo("[\"og_btree_id\"]");
        assertThat(first.json().path("built").path("edge:Knows").toString())
                .isEqualTo("[\"og_btree_id\",\"og_btree_src\",\"og_btree_dst\"]");
        assertThat(first.json().path("commit").path("graph_commit_id").asText()).isNotEmpty();

        Reply again = http.postJson(G + "/indexes/ensure", "{\"branch\":\"main\"}");
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.json().path("built").isEmpty()).isTrue();
        assertThat(again.json().path("commit").isNull()).isTrue();
    }

    @Test
    void onABranchAndItsRefusals() {
        assertThat(http.postJson(G + "/branches", "{\"name\":\"dev\"}").status()).isEqualTo(200);
        Reply onDev = http.postJson(G + "/indexes/ensure", "{\"branch\":\"dev\"}");
        assertThat(onDev.status()).as(onDev.toString()).isEqualTo(200);
        assertThat(onDev.json().path("commit").path("graph_branch").asText()).isEqualTo("dev");

        assertThat(http.postJson(G + "/indexes/ensure", "{\"branch\":\"ghost\"}").status()).isEqualTo(404);
        Reply unknown = http.postJson(G + "/indexes/ensure", "{\"table\":\"x\"}");
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.json().path("error").asText()).contains("unknown field 'table'");
        assertThat(http.postJson(G + "/indexes/ensure", "{\"branch\":7}").status()).isEqualTo(400);
    }
}

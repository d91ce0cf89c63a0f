package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.error.BadRequest;
import org.junit.jupiter.api.Test;

class BearerTokensTest {
    @Test
    void parsesEntriesFromFileTextAndTheEnvironmentSpelling() {
        BearerTokens file = BearerTokens.parse("# comment\n\n tok-aaaaaaaa = alice \ntok-bbbbbbbb=bob\n", "file");
        assertThat(file.size()).isEqualTo(2);
        assertThat(file.actorFor("Bearer tok-aaaaaaaa")).contains("alice");
        assertThat(file.actorFor("bearer  tok-bbbbbbbb ")).contains("bob");
        assertThat(file.actorFor("Bearer tok-aaaaaaab")).isEmpty();
        assertThat(file.actorFor(null)).isEmpty();
        assertThat(file.actorFor("tok-aaaaaaaa")).isEmpty();

        BearerTokens env = BearerTokens.fromEnvironment("tok-cccccccc=carol,tok-dddddddd=dan");
        assertThat(env.actorFor("Bearer tok-dddddddd")).contains("dan");
        assertThat(BearerTokens.fromEnvironment(" ").enabled()).isFalse();
        assertThat(BearerTokens.fromEnvironment(null).enabled()).isFalse();
    }

    @Test
    void refusesMalformedOrShortTokens() {
        assertThatThrownBy(() -> BearerTokens.parse("justatoken", "file")).isInstanceOf(BadRequest.class)
                .hasMessageContaining("token=actor");
        assertThatThrownBy(() -> BearerTokens.parse("short=actor", "file")).isInstanceOf(BadRequest.class)
                .hasMessageContaining("8 characters");
    }
}

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

    @Test
    void tokensMayContainEqualsSigns() {
        BearerTokens tokens = BearerTokens.parse("dG9rZW4tYWRh==ada\nab=cd=ef=gh==bob", "file");
        assertThat(tokens.actorFor("Bearer dG9rZW4tYWRh=")).contains("ada");
        assertThat(tokens.actorFor("Bearer dG9rZW4tYWRh")).as("no prefix of the token").isEmpty();
        assertThat(tokens.actorFor("Bearer ab=cd=ef=gh=")).contains("bob");
        assertThat(tokens.actorFor("Bearer ab")).isEmpty();
    }

    @Test
    void aMissingFileIsABadRequestNamingTheFlag(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        java.nio.file.Path missing = dir.resolve("nope.tokens");
        assertThatThrownBy(() -> BearerTokens.fromFile(missing, "--tokens-file")).isInstanceOf(BadRequest.class)
                .hasMessageContaining("--tokens-file").hasMessageContaining("no such file");
    }

    @Test
    void onlyRealLoopbackAddressesCountAsLoopback() {
        for (String loopback : new String[] {"127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]"}) {
            assertThat(OmnigraphServer.isLoopback(loopback)).as(loopback).isTrue();
        }
        for (String other : new String[] {"127.evil.example", "127.0.0.1.nip.io", "127.0.0.256", "127.0.0", "0.0.0.0",
                "1270.0.0.1", "::", "example.com", "127.0.0.1:80"}) {
            assertThat(OmnigraphServer.isLoopback(other)).as(other).isFalse();
        }
    }
}

package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.error.BadRequest;
import java.util.List;
import org.junit.jupiter.api.Test;

class LanceBranchNamesTest {
    @Test
    void acceptsOrdinaryNames() {
        for (String name : List.of("feature", "team/alice", "v1.2_fix-3", "a/b/c")) {
            assertThatCode(() -> LanceBranchNames.requireValid(name)).as(name).doesNotThrowAnyException();
        }
    }

    @Test
    void refusesHostileAndReservedNames() {
        for (String name : List.of("", "main", "__schema_apply_lock__", "/a", "a/", "a//b", "a/../b", "..", "x.lock",
                "has space", "tab\tname", "semi;colon", "quote'", "new\nline", "ü", "a".repeat(201))) {
            assertThatThrownBy(() -> LanceBranchNames.requireValid(name)).as(name).isInstanceOf(BadRequest.class)
                    .hasMessageContaining("invalid branch name");
        }
    }

    @Test
    void refusesNamesThatArePrefixesOfLiveOnes() {
        assertThatThrownBy(() -> LanceBranchNames.requireDisjoint("a/b", List.of("a"))).isInstanceOf(BadRequest.class);
        assertThatThrownBy(() -> LanceBranchNames.requireDisjoint("a", List.of("a/b"))).isInstanceOf(BadRequest.class);
        assertThatThrownBy(() -> LanceBranchNames.requireDisjoint("ab", List.of("a/b"))).isInstanceOf(BadRequest.class);
        assertThatThrownBy(() -> LanceBranchNames.requireDisjoint("dev-x", List.of("dev"))).isInstanceOf(BadRequest.class);
        assertThatCode(() -> LanceBranchNames.requireDisjoint("x", List.of("y", "feature"))).doesNotThrowAnyException();
    }
}

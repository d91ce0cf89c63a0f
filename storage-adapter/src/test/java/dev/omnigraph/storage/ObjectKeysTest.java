package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.error.BadRequest;
import org.junit.jupiter.api.Test;

class ObjectKeysTest {
    @Test
    void aKeyIsARelativeSlashPathThatCannotLeaveTheRoot() {
        assertThat(ObjectKeys.problem("_graph/sidecars/a.json", false)).isEmpty();
        assertThat(ObjectKeys.problem("", false)).contains("it is empty");
        assertThat(ObjectKeys.problem("/etc/passwd", false)).contains("it must be relative");
        assertThat(ObjectKeys.problem("a/../../b", false)).contains("it has an empty, '.' or '..' segment");
        assertThat(ObjectKeys.problem("a//b", false)).contains("it has an empty, '.' or '..' segment");
        assertThat(ObjectKeys.problem("a\\b", false)).contains("it must not contain a backslash");
        assertThat(ObjectKeys.problem("a\0b", false)).contains("it must not contain a NUL character");
    }

    @Test
    void aPrefixMayBeEmptyOrEndWithASlash() {
        assertThat(ObjectKeys.problem("", true)).isEmpty();
        assertThat(ObjectKeys.problem("_graph/sidecars/", true)).isEmpty();
        assertThat(ObjectKeys.problem("_graph//", true)).contains("it has an empty, '.' or '..' segment");
    }

    @Test
    void aRefusalNamesTheKeyWithoutItsNul() {
        assertThatThrownBy(() -> ObjectKeys.require("a\0b", false)).isInstanceOf(BadRequest.class)
                .hasMessage("invalid object key 'a?b': it must not contain a NUL character");
    }
}

package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.error.BadRequest;
import org.junit.jupiter.api.Test;

/** The text rule: NUL and unpaired surrogates are refused, everything else (emoji included) is valid. */
class ValidTextTest {

    @Test
    void validTextIncludesSupplementaryPlaneCharacters() {
        for (String ok : new String[] {"", "plain", "émoji 😀", "😀", "a😀b😀", "\uD83D\uDE00", "tab\tnl\n", "\uFFFF"}) {
            assertThat(ValidText.firstInvalid(ok)).as(ok).isEqualTo(-1);
            assertThat(ValidText.problem(ok)).isNull();
        }
        ValidText.require("field", "emoji 😀");
        ValidText.require("field", null);
    }

    @Test
    void findsTheFirstNulOrUnpairedSurrogate() {
        assertThat(ValidText.firstInvalid("ab\0c")).isEqualTo(2);
        assertThat(ValidText.firstInvalid("\uD800")).isEqualTo(0);
        assertThat(ValidText.firstInvalid("x\uD800y")).isEqualTo(1);
        assertThat(ValidText.firstInvalid("x\uDC00")).isEqualTo(1);
        assertThat(ValidText.firstInvalid("😀\uDC00")).as("a low half after a complete pair").isEqualTo(2);
        assertThat(ValidText.firstInvalid("\uD800\uD83D\uDE00")).as("a high half before a pair").isEqualTo(0);
        assertThat(ValidText.firstInvalid("ok\uD83D")).as("a high half at the end").isEqualTo(2);
    }

    @Test
    void problemsAreDescribedWithoutTheOffendingCharacter() {
        assertThat(ValidText.problem("ab\0c")).isEqualTo(
                "contains a NUL character (U+0000) at character 3; text must be valid Unicode without NUL");
        assertThat(ValidText.problem("x\uDBFF")).startsWith("contains an unpaired surrogate (U+DBFF) at character 2")
                .doesNotContain("\uDBFF");
        assertThatThrownBy(() -> ValidText.require("param $name", "a\0"))
                .isInstanceOf(BadRequest.class)
                .hasMessage("param $name contains a NUL character (U+0000) at character 2;"
                        + " text must be valid Unicode without NUL");
    }
}

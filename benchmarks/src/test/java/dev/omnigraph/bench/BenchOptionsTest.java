package dev.omnigraph.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** {@code --scale} sizes the scale-reads graph: 10m, 200k or a plain count; anything else is refused. */
class BenchOptionsTest {
    @Test
    void scaleTakesCountsWithSuffixes() {
        assertThat(BenchOptions.parse(new String[] {"--scale", "10m", "scale-reads"}).scaleEntities())
                .isEqualTo(OptionalInt.of(10_000_000));
        assertThat(BenchOptions.parse(new String[] {"--scale", "200K"}).scaleEntities()).isEqualTo(OptionalInt.of(200_000));
        assertThat(BenchOptions.parse(new String[] {"--scale", "1_000_000"}).scaleEntities())
                .isEqualTo(OptionalInt.of(1_000_000));
        assertThat(BenchOptions.parse(new String[] {"scale-reads"}).scaleEntities()).isEmpty();
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--scale", "lots"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1m");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--scale", "9000m"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("out of range");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--scale"})).isInstanceOf(IllegalArgumentException.class);
    }
}

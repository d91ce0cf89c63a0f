package dev.omnigraph.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.write.LoadConcurrency;
import dev.omnigraph.storage.testing.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code OMNIGRAPH_LOAD_CONCURRENCY} is checked where it is read, when a handle opens (issue 30, item 7): a bad value
 * refuses the open with a typed {@code BadRequest} naming the variable, before any write; a good one opens.
 */
class LoadConcurrencyTest {
    @TempDir
    Path dir;

    String openWith(Path root, String value) throws Exception {
        ChildJvm.Finished child = ChildJvm.run(LoadConcurrencyMain.class, dir.resolve("tmp"), List.of(root.toString()),
                List.of(LoadConcurrency.ENV + "=" + value), Duration.ofSeconds(120));
        assertThat(child.exitValue()).as(child.output()).isZero();
        return child.output();
    }

    @Test
    void aBadValueRefusesTheOpenTypedAndAGoodOneOpens() throws Exception {
        Path root = dir.resolve("g");
        StorageServices services = EngineFixture.services();
        Omnigraph.init(services, root, GraphTestSupport.CONSTRAINED).block().close();
        EngineFixture.close(services);
        for (String bad : List.of("abc", "0", "-2", "100000")) {
            assertThat(openWith(root, bad)).as(bad)
                    .contains("REFUSED BadRequest: " + LoadConcurrency.ENV + " must be an integer from 1 to");
        }
        assertThat(openWith(root, "2")).contains("OPENED");
    }
}

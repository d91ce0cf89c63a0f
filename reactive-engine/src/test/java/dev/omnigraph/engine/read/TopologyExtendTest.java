package dev.omnigraph.engine.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A topology extended by the edges appended after its own is the topology a full build of all the edges gives:
 * the same neighbours, in the same order, for every id and direction (new ids, hubs, self-loops and repeats
 * included); the base is left as it was; the byte limit counts the base's edges too.
 */
class TopologyExtendTest {
    @Test
    void anExtensionEqualsTheFullBuild() {
        Random random = new Random(35);
        for (int round = 0; round < 20; round++) {
            int nodes = 1 + random.nextInt(60);
            List<String[]> edges = new ArrayList<>();
            int total = random.nextInt(300);
            for (int i = 0; i < total; i++) {
                double u = random.nextDouble();
                int from = (int) (nodes * u * u);
                int to = random.nextInt(8) == 0 ? from : random.nextInt(nodes + 10); // some ids only the new rows hold
                edges.add(new String[] {"n" + from, "n" + to});
            }
            int cut = total == 0 ? 0 : random.nextInt(total + 1);
            Topology.Builder full = new Topology.Builder(Long.MAX_VALUE);
            Topology.Builder first = new Topology.Builder(Long.MAX_VALUE);
            for (int i = 0; i < total; i++) {
                full.add(edges.get(i)[0], edges.get(i)[1]);
                if (i < cut) first.add(edges.get(i)[0], edges.get(i)[1]);
            }
            Topology base = first.build();
            List<String> before = snapshot(base, nodes + 10);
            Topology.Builder more = Topology.Builder.extending(base, Long.MAX_VALUE);
            for (int i = cut; i < total; i++) more.add(edges.get(i)[0], edges.get(i)[1]);
            Topology extended = more.build();
            Topology expected = full.build();
            assertThat(snapshot(extended, nodes + 10)).as("round %d, cut %d of %d", round, cut, total)
                    .isEqualTo(snapshot(expected, nodes + 10));
            assertThat(extended.edgeCount()).isEqualTo(expected.edgeCount());
            assertThat(extended.nodeCount()).isEqualTo(expected.nodeCount());
            assertThat(snapshot(base, nodes + 10)).as("the base is unchanged").isEqualTo(before);
        }
    }

    @Test
    void theLimitCountsTheBaseEdges() {
        Topology.Builder first = new Topology.Builder(Long.MAX_VALUE);
        for (int i = 0; i < 5000; i++) first.add("a" + (i % 10), "b" + (i % 10));
        Topology base = first.build();
        Topology.Builder more = Topology.Builder.extending(base, 16L * 5000);
        assertThatThrownBy(() -> more.add("a1", "b2")).isInstanceOf(Topology.TooLarge.class);
    }

    private static List<String> snapshot(Topology t, int ids) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < ids; i++) {
            for (Expander.Probe probe : Expander.Probe.values()) {
                out.add("n" + i + " " + probe + " " + t.neighbours("n" + i, probe));
            }
        }
        return out;
    }
}

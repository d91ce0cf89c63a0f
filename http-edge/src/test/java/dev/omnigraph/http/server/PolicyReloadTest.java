package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.http.policy.PolicyAction;
import dev.omnigraph.storage.error.ParseError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reloading policy bundles: all or nothing, a bad bundle keeps the old policy, a request keeps the policy it took. */
class PolicyReloadTest {
    static final String ALLOW = """
            version: 1
            groups: { agents: [act-agent] }
            rules:
              - id: agents-do-all
                allow: { actors: { group: agents }, actions: [invoke_query, change], branch_scope: null }
            """;
    static final String DENY = """
            version: 1
            groups: { agents: [act-agent] }
            rules: []
            """;

    @TempDir
    Path dir;

    @Test
    void aBrokenBundleIsRefusedAndTheOldStays() throws Exception {
        Path server = Files.writeString(dir.resolve("server.yaml"), ALLOW);
        Path alpha = Files.writeString(dir.resolve("alpha.yaml"), ALLOW);
        ServerPolicy policy = ServerPolicy.load(Optional.of(server), Map.of("alpha", alpha));
        assertThat(policy.decide("act-agent", PolicyAction.CHANGE, "g", "b", null).allowed()).isTrue();

        // One good file and one broken one: neither is taken.
        Files.writeString(server, DENY);
        Files.writeString(alpha, "version: 1\nrules: [ {id: x, allow: {actions: [fly]}} ]\n");
        ServerPolicy.Reload refused = policy.reload();
        assertThat(refused.applied()).isFalse();
        assertThat(refused.message()).contains("alpha.yaml:2:");
        assertThat(policy.decide("act-agent", PolicyAction.CHANGE, "g", "b", null).allowed()).isTrue();
        assertThat(policy.decide("act-agent", PolicyAction.CHANGE, "alpha", "b", null).allowed()).isTrue();

        Files.writeString(alpha, DENY);
        assertThat(policy.reload().applied()).isTrue();
        assertThat(policy.decide("act-agent", PolicyAction.CHANGE, "g", "b", null).allowed()).isFalse();
        assertThat(policy.decide("act-agent", PolicyAction.CHANGE, "alpha", "b", null).allowed()).isFalse();

        // A missing file is refused the same way.
        Files.writeString(alpha, ALLOW);
        Files.delete(server);
        assertThat(policy.reload().applied()).isFalse();
        assertThat(policy.decide("act-agent", PolicyAction.CHANGE, "alpha", "b", null).allowed()).isFalse();
    }

    @Test
    void anInvalidBundleRefusesToStart() throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.yaml"), "version: 1\ngroups: { a: [] }\n");
        assertThatThrownBy(() -> ServerPolicy.load(Optional.of(bad), Map.of()))
                .isInstanceOf(ParseError.class).hasMessageContaining("bad.yaml:2:").hasMessageContaining("has no actors");
    }

    @Test
    void aFileChangeReloadsWithoutARestart() throws Exception {
        Path server = Files.writeString(dir.resolve("server.yaml"), ALLOW);
        ServerPolicy policy = ServerPolicy.load(Optional.of(server), Map.of());
        CountDownLatch applied = new CountDownLatch(1);
        policy.onReload(r -> {
            if (r.applied() && !policy.decide("act-agent", PolicyAction.CHANGE, "g", "b", null).allowed()) {
                applied.countDown();
            }
        });
        try (PolicyReloader reloader = PolicyReloader.start(policy)) {
            Path next = Files.writeString(dir.resolve("server.yaml.tmp"), DENY);
            Files.move(next, server, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            assertThat(applied.await(30, TimeUnit.SECONDS)).as("reloaded after the file changed").isTrue();
        }
    }

    /**
     * Requests racing reloads between a bundle allowing both of a stored mutation's decisions and one allowing
     * neither: each request decides both with the policy it took, so none is allowed one and denied the other.
     */
    @Test
    void aRequestRacingReloadsSeesOnePolicy() throws Exception {
        Path server = Files.writeString(dir.resolve("server.yaml"), ALLOW);
        ServerPolicy policy = ServerPolicy.load(Optional.of(server), Map.of());
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger mixed = new AtomicInteger();
        AtomicInteger requests = new AtomicInteger();
        Thread reloads = new Thread(() -> {
            for (int i = 0; i < 40; i++) {
                try {
                    Files.writeString(server, i % 2 == 0 ? DENY : ALLOW);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                policy.reload();
            }
            done.set(true);
        });
        reloads.start();
        List<Thread> callers = java.util.stream.IntStream.range(0, 2).mapToObj(n -> new Thread(() -> {
            while (!done.get()) {
                Gate gate = new Gate(policy, policy.current(), Optional.of("act-agent"), "g");
                boolean invoke = gate.allows(PolicyAction.INVOKE_QUERY, null, null);
                boolean change = gate.allows(PolicyAction.CHANGE, "b-" + requests.incrementAndGet(), null);
                if (invoke != change) mixed.incrementAndGet();
            }
        })).toList();
        callers.forEach(Thread::start);
        reloads.join();
        for (Thread t : callers) t.join();
        assertThat(policy.reloads()).isEqualTo(40);
        assertThat(requests.get()).isPositive();
        assertThat(mixed.get()).isZero();
    }
}

package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** The edge's tests run under BlockHound (installed from the storage-adapter test-jar): prove it is armed here. */
class BlockHoundGuardTest {
    @Test
    void blockingOnANonBlockingThreadFails() {
        assertThatThrownBy(() -> Mono.fromCallable(() -> {
                    Thread.yield(); // counted as blocking by BlockHound, without waiting
                    return 1;
                }).subscribeOn(Schedulers.parallel()).block())
                .hasMessageContaining("Blocking call");
    }
}

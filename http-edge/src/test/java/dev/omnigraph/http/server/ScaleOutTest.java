package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.error.BadRequest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The settings of a server sharing its root: checked, normalised, and recorded in the lease it takes. */
class ScaleOutTest {
    @Test
    void theAdvertisedUrlIsAnAbsoluteHttpUrlWithoutATrailingSlashAndGoesIntoTheLease() {
        ScaleOut settings = ScaleOut.DEFAULT.advertising("http://10.0.0.5:8080/");
        assertThat(settings.advertiseUrl()).contains("http://10.0.0.5:8080");
        assertThat(settings.withLease(SharedRootServers.lease(7)).leaseSettings().advertise())
                .contains("http://10.0.0.5:8080");
        assertThat(ScaleOut.DEFAULT.advertising("https://graph.example/api").advertiseUrl())
                .contains("https://graph.example/api");
        for (String bad : new String[] {"10.0.0.5:8080", "ftp://h/", "http://h/x?y=1", "http:///nohost", "not a url"}) {
            assertThatThrownBy(() -> ScaleOut.DEFAULT.advertising(bad)).as(bad).isInstanceOf(BadRequest.class);
        }
    }

    @Test
    void modesAndDurationsAreChecked() {
        assertThat(ScaleOut.FollowerWrites.parse(" Redirect ")).isEqualTo(ScaleOut.FollowerWrites.REDIRECT);
        assertThatThrownBy(() -> ScaleOut.FollowerWrites.parse("proxy")).isInstanceOf(BadRequest.class)
                .hasMessageContaining("forward, redirect or refuse");
        assertThatThrownBy(() -> ScaleOut.DEFAULT.withMaxStaleness(Duration.ZERO)).isInstanceOf(BadRequest.class);
        assertThatThrownBy(() -> ScaleOut.DEFAULT.withMinCommitTimeout(Duration.ofMillis(-1)))
                .isInstanceOf(BadRequest.class);
        assertThat(ScaleOut.DEFAULT.followerWrites()).isEqualTo(ScaleOut.FollowerWrites.FORWARD);
        assertThat(ScaleOut.DEFAULT.leaseSettings().advertise()).isEmpty();
    }
}

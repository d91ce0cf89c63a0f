package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every route behind the bearer check says what it asks of the policy, so a new route cannot skip authorization. */
class RouteAccessGuardTest {
    @Test
    void everyAuthenticatedRouteHasAnAuthorizationRule() {
        List<String> missing = new ArrayList<>();
        Stream.concat(Routes.graphRoutes().stream(), Stream.of(Routes.metricsRoute(new ServerMetrics())))
                .filter(route -> !RouteAccess.covers(route))
                .forEach(route -> missing.add(route.method() + " " + route.path()));
        assertThat(missing).as("routes without a RouteAccess rule").isEmpty();
        assertThat(RouteAccess.covers(new Route("GET", "graphs", null, null))).isTrue();
    }
}

package dev.omnigraph.http.server;

import dev.omnigraph.engine.observe.EngineTelemetry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.RequestReplyReceiverContext;
import io.micrometer.tracing.handler.TracingObservationHandler;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * Each request as one {@code omnigraph.http.request} observation (low-cardinality keys: method, route template,
 * status, outcome) that the engine's write, query and maintenance observations hang under, and one INFO line on
 * {@code dev.omnigraph.http.requests} when it ends, carrying its request id and trace id.
 *
 * <p>The trace id is the tracer's, when the caller bridged the observation registry to one (Micrometer Tracing:
 * OpenTelemetry, Brave); else the one the client sent in a W3C {@code traceparent} header; else a fresh random one,
 * so every log line of a request can be found by one id either way.
 */
final class RequestTelemetry {
    static final Logger LOG = LoggerFactory.getLogger("dev.omnigraph.http.requests");
    static final String OBSERVATION = "omnigraph.http.request";
    static final String TRACEPARENT = "traceparent";
    /** version-traceid-parentid-flags; an all-zero trace id is invalid (W3C Trace Context). */
    private static final Pattern TRACEPARENT_FORMAT =
            Pattern.compile("[0-9a-f]{2}-(?!0{32})([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}");

    private final ObservationRegistry observations;
    private final Function<String, String> routeTemplate;

    /** {@code observations} null or no-op: no observation is made (the log line still is). */
    RequestTelemetry(ObservationRegistry observations, Function<String, String> routeTemplate) {
        this.observations = observations == null ? ObservationRegistry.NOOP : observations;
        this.routeTemplate = routeTemplate;
    }

    /** Serves {@code request} through {@code dispatch} inside its observation, then logs it. Never throws. */
    Mono<Void> around(HttpServerRequest request, HttpServerResponse response, String requestId, Mono<Void> dispatch) {
        boolean logged = LOG.isInfoEnabled();
        if (observations.isNoop() && !logged) {
            return dispatch;
        }
        return Mono.defer(() -> {
            long start = System.nanoTime();
            String method = request.method().name();
            String route = routeTemplate.apply(request.uri());
            Observation observation = observations.isNoop() ? null : start(request, method, route);
            String traceId = traceId(observation, request.requestHeaders().get(TRACEPARENT));
            Mono<Void> served = observation == null ? dispatch
                    : dispatch.contextWrite(context -> context.put(EngineTelemetry.CALLER_OBSERVATION, observation));
            return served.doFinally(signal -> {
                int status = response.status().code();
                String outcome = switch (signal) {
                    case CANCEL -> "cancelled";
                    default -> status >= 500 ? "server_error" : status >= 400 ? "client_error" : "success";
                };
                if (observation != null) {
                    observation.lowCardinalityKeyValue("status", Integer.toString(status))
                            .lowCardinalityKeyValue("outcome", outcome);
                    ((RequestReplyReceiverContext<?, HttpServerResponse>) observation.getContext()).setResponse(response);
                    observation.stop();
                }
                if (logged) {
                    // Off the event loop: a console write may block.
                    long ms = (System.nanoTime() - start) / 1_000_000;
                    Schedulers.boundedElastic().schedule(() -> LOG.atInfo().addKeyValue("method", method).addKeyValue("route", route)
                            .addKeyValue("status", status).addKeyValue("ms", ms)
                            .addKeyValue("outcome", outcome).addKeyValue("request_id", requestId)
                            .addKeyValue("trace_id", traceId).log("served"));
                }
            });
        });
    }

    private Observation start(HttpServerRequest request, String method, String route) {
        // A receiver context: a tracing handler reads the caller's traceparent through this getter.
        RequestReplyReceiverContext<HttpServerRequest, HttpServerResponse> context =
                new RequestReplyReceiverContext<>((carrier, key) -> carrier.requestHeaders().get(key));
        context.setCarrier(request);
        return Observation.createNotStarted(OBSERVATION, () -> context, observations)
                .contextualName(method + " " + route)
                .lowCardinalityKeyValue("method", method)
                .lowCardinalityKeyValue("route", route)
                .start();
    }

    /** The tracer's trace id, else the client's {@code traceparent} one, else a fresh one. */
    static String traceId(Observation observation, String traceparent) {
        if (observation != null) {
            TracingObservationHandler.TracingContext tracing =
                    observation.getContext().get(TracingObservationHandler.TracingContext.class);
            if (tracing != null && tracing.getSpan() != null) {
                return tracing.getSpan().context().traceId();
            }
        }
        if (traceparent != null) {
            Matcher parsed = TRACEPARENT_FORMAT.matcher(traceparent.strip());
            if (parsed.matches()) {
                return parsed.group(1);
            }
        }
        // Correlation, not a secret: a thread-local generator, which never blocks an event loop.
        ThreadLocalRandom random = ThreadLocalRandom.current();
        return HexFormat.of().toHexDigits(random.nextLong() | 1L) + HexFormat.of().toHexDigits(random.nextLong());
    }
}

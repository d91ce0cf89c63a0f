package dev.omnigraph.http.server;

import dev.omnigraph.http.policy.AccessRequest;
import dev.omnigraph.http.policy.BundleReader;
import dev.omnigraph.http.policy.CedarPolicy;
import dev.omnigraph.http.policy.Decision;
import dev.omnigraph.http.policy.PolicyAction;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's authorization state: no policy (every authenticated request is allowed, as before policies
 * existed), or policy bundles compiled to Cedar, one server-wide and any per graph. A reload re-reads every file
 * and swaps the whole set in one step, or, when any file is missing or invalid, keeps the set in force and logs
 * why. A request takes one {@link Policies} when it starts and decides everything with it, so a request racing
 * a reload sees the old or the new policy, never a mix.
 *
 * <p>Denials are logged (actor, action, resource) and counted as {@code omnigraph.authz.denials} tagged by action.
 */
public final class ServerPolicy {
    private static final Logger LOG = LoggerFactory.getLogger(ServerPolicy.class);
    public static final String DENIALS = "omnigraph.authz.denials";
    private static final ServerPolicy NONE = new ServerPolicy(Optional.empty(), Map.of(), Policies.OPEN);

    /**
     * The policies in force at one moment. {@code serverWide} decides {@code graph_list} and every graph without a
     * bundle of its own; with policies enabled, a question no bundle covers is denied.
     */
    public record Policies(boolean enabled, Optional<CedarPolicy> serverWide, Map<String, CedarPolicy> perGraph) {
        static final Policies OPEN = new Policies(false, Optional.empty(), Map.of());

        public Decision decide(AccessRequest request) {
            if (!enabled) return Decision.ALLOW_ALL;
            Optional<CedarPolicy> policy = request.action().serverWide() || request.graph() == null ? serverWide
                    : Optional.ofNullable(perGraph.get(request.graph())).or(() -> serverWide);
            return policy.map(p -> p.decide(request))
                    .orElseGet(() -> Decision.deny("no policy bundle covers " + request.resource()));
        }
    }

    /** What a reload did: whether it swapped the policies, and why not when it did not. */
    public record Reload(boolean applied, String message) {
    }

    private final Optional<Path> serverWideFile;
    private final Map<String, Path> graphFiles;
    private final AtomicReference<Policies> current;
    private final AtomicLong reloads = new AtomicLong();
    private volatile Consumer<Reload> reloadListener = r -> { };
    private volatile Counter.Builder denialMeter;
    private volatile MeterRegistry meters;

    private ServerPolicy(Optional<Path> serverWideFile, Map<String, Path> graphFiles, Policies initial) {
        this.serverWideFile = serverWideFile;
        this.graphFiles = Map.copyOf(graphFiles);
        this.current = new AtomicReference<>(initial);
    }

    /** No policy: today's behaviour (any authenticated caller may do anything). */
    public static ServerPolicy none() {
        return NONE;
    }

    /**
     * Loads the bundles (blocking; at start-up). An invalid bundle fails here with its positioned error, so a
     * server never starts on a policy it cannot enforce.
     */
    public static ServerPolicy load(Optional<Path> serverWide, Map<String, Path> perGraph) {
        return new ServerPolicy(serverWide, perGraph, read(serverWide, perGraph));
    }

    private static Policies read(Optional<Path> serverWide, Map<String, Path> perGraph) {
        Optional<CedarPolicy> server = serverWide.map(f -> CedarPolicy.compile(BundleReader.read(f)));
        Map<String, CedarPolicy> graphs = new LinkedHashMap<>();
        perGraph.forEach((id, file) -> graphs.put(id, CedarPolicy.compile(BundleReader.read(file))));
        return new Policies(true, server, Map.copyOf(graphs));
    }

    /**
     * A policy decides per actor, and without bearer tokens no request has one: a server with a policy and no
     * tokens could only refuse everything, so it does not start.
     */
    void requireTokens(BearerTokens tokens) {
        if (enabled() && !tokens.enabled()) {
            throw new dev.omnigraph.storage.error.BadRequest("a policy needs bearer tokens (its rules name the actors "
                    + "tokens resolve to); configure --tokens or " + BearerTokens.ENV);
        }
    }

    public boolean enabled() {
        return current.get().enabled();
    }

    /** The policies in force now; a request keeps the one it took. */
    public Policies current() {
        return current.get();
    }

    /** The bundle files, for the watcher. */
    List<Path> files() {
        List<Path> files = new java.util.ArrayList<>();
        serverWideFile.ifPresent(files::add);
        files.addAll(graphFiles.values());
        return files;
    }

    /**
     * Re-reads every bundle (blocking) and swaps them in all together; a missing or invalid bundle keeps the
     * policies in force, and the log says which file and why.
     */
    public Reload reload() {
        if (!enabled()) return new Reload(false, "no policy is configured");
        Reload outcome;
        try {
            current.set(read(serverWideFile, graphFiles));
            outcome = new Reload(true, "policy reloaded (" + files().size() + " bundle(s))");
            LOG.info(outcome.message());
        } catch (RuntimeException e) {
            outcome = new Reload(false, "policy reload refused, the previous policy stays in force: " + e.getMessage());
            LOG.warn(outcome.message());
        }
        reloads.incrementAndGet();
        reloadListener.accept(outcome);
        return outcome;
    }

    /** Reloads attempted so far (applied or refused). */
    public long reloads() {
        return reloads.get();
    }

    /** Told about every reload, after it happened (tests wait on it instead of sleeping). */
    public void onReload(Consumer<Reload> listener) {
        this.reloadListener = listener;
    }

    /** Counts denials on {@code registry} from now on. */
    void bindMetrics(MeterRegistry registry) {
        this.meters = registry;
        this.denialMeter = Counter.builder(DENIALS).description("Requests refused by the authorization policy");
    }

    /** Logs and counts one denial: the actor, the action and the resource (graph and branches). */
    void audit(AccessRequest request, Decision decision) {
        // Off the event loop: the log stream may block.
        reactor.core.scheduler.Schedulers.boundedElastic().schedule(() -> LOG.warn(
                "authorization denied: actor={} action={} resource={} ({})", request.actor().orElse("<none>"),
                request.action().wireName(), request.resource(), decision.reason()));
        MeterRegistry registry = meters;
        if (registry != null) denialMeter.tag("action", request.action().wireName()).register(registry).increment();
    }

    /** A decision for an actor and action, for tests and the CLI. */
    public Decision decide(String actor, PolicyAction action, String graph, String branch, String target) {
        return current().decide(AccessRequest.of(actor, action, graph, branch, target));
    }
}

package dev.omnigraph.recovery;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import dev.omnigraph.storage.FailpointCatalog;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.error.RecoveryRequired;
import java.io.IOException;
import java.util.Optional;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Reads and writes sidecars under {@code __recovery/}. Writes are atomic puts (temp + fsync + rename), so a
 * sidecar is either absent or whole. A sidecar that cannot be parsed, or carries a newer schema version, is
 * refused loudly and left on disk: a write must never proceed past an intent it cannot understand.
 */
public final class SidecarStore {
    public static final String DIRECTORY = "__recovery/";
    static final ObjectMapper JSON = new ObjectMapper()
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

    private final ObjectStore files;
    private final Failpoints failpoints;

    public SidecarStore(ObjectStore files) {
        this(files, Failpoints.none());
    }

    /** {@code failpoints} may inject faults before each write, delete and list ({@code recovery.sidecar_*}). */
    public SidecarStore(ObjectStore files, Failpoints failpoints) {
        this.files = files;
        this.failpoints = failpoints;
    }

    public static String key(String operationId) {
        return DIRECTORY + operationId + ".json";
    }

    /** Durably writes (or rewrites) the sidecar; on failure the previous content (or absence) is intact. */
    public Mono<Void> write(Sidecar sidecar) {
        return Mono.fromCallable(() -> JSON.writeValueAsBytes(sidecar))
                .flatMap(bytes -> failpoints.hit(FailpointCatalog.SIDECAR_WRITE)
                        .then(files.put(key(sidecar.operationId()), bytes)));
    }

    public Mono<Optional<Sidecar>> read(String operationId) {
        return files.get(key(operationId)).map(bytes -> bytes.map(content -> parse(operationId, content)));
    }

    /**
     * Every pending sidecar, in operation-id (= chronological) order. A listing that fails is an error, never
     * an empty answer: "no sidecars" would let a write or an open skip recovery.
     */
    public Flux<Sidecar> list() {
        return failpoints.hit(FailpointCatalog.SIDECAR_LIST)
                .then(files.list(DIRECTORY))
                .flatMapMany(Flux::fromIterable)
                .filter(name -> name.endsWith(".json"))
                .concatMap(name -> {
                    String operationId = name.substring(DIRECTORY.length(), name.length() - ".json".length());
                    // A sidecar that vanished between list and read was finished by someone else: benign.
                    return read(operationId).flatMap(Mono::justOrEmpty);
                });
    }

    public Mono<Boolean> delete(String operationId) {
        return failpoints.hit(FailpointCatalog.SIDECAR_DELETE).then(files.delete(key(operationId)));
    }

    static Sidecar parse(String operationId, byte[] content) {
        Sidecar sidecar;
        try {
            int version = JSON.readTree(content).path("schema_version").asInt(-1);
            if (version > Sidecar.SCHEMA_VERSION) {
                throw new RecoveryRequired(operationId, "sidecar " + operationId + " has schema_version " + version
                        + ", newer than this build understands (" + Sidecar.SCHEMA_VERSION + "); upgrade omnigraph", null);
            }
            sidecar = JSON.readValue(content, Sidecar.class);
        } catch (IOException e) {
            throw new RecoveryRequired(operationId, "sidecar " + operationId + " is unreadable (" + e.getMessage()
                    .lines().findFirst().orElse("") + "); it was left on disk for an operator", e);
        }
        if (!operationId.equals(sidecar.operationId())) {
            throw new RecoveryRequired(operationId, "sidecar file " + operationId + " names operation "
                    + sidecar.operationId(), null);
        }
        return sidecar;
    }

    /** For tests and diagnostics: the JSON text of a sidecar. */
    public static String toJson(Sidecar sidecar) {
        try {
            return JSON.writeValueAsString(sidecar);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

}

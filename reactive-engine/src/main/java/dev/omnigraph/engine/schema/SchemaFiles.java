package dev.omnigraph.engine.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.StorageFault;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import reactor.core.publisher.Mono;

/**
 * The schema contract files of a graph root: {@code _schema.pg} (source), {@code _schema.ir.json} (identities)
 * and {@code __schema_state.json} (hashes, written last). Open accepts a root only when the three agree.
 */
public final class SchemaFiles {
    public static final String SOURCE = "_schema.pg";
    public static final String IR = "_schema.ir.json";
    public static final String STATE = "__schema_state.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Contents of {@code __schema_state.json}. */
    public record SchemaState(@JsonProperty("format_version") int formatVersion,
                       @JsonProperty("schema_shape_hash") String schemaShapeHash,
                       @JsonProperty("schema_ir_hash") String schemaIrHash,
                       @JsonProperty("schema_identity_version") int schemaIdentityVersion,
                       @JsonProperty("schema_identity_domain") String schemaIdentityDomain) {
        /** The state marker of {@code schema} with identities {@code ir}. */
        public static SchemaState of(CompiledSchema schema, SchemaIr ir) {
            return new SchemaState(2, SchemaShapeHash.hash(schema), ir.irHash(), 2, ir.schemaIdentityDomain());
        }
    }

    /** An accepted schema as read from (or written to) a root. */
    public record Accepted(String source, CompiledSchema schema, SchemaIr ir, SchemaState state, Catalog catalog) {
        /** Compiles {@code source} against identities {@code ir} (throws on a source that does not match it). */
        public static Accepted compile(String source, SchemaIr ir) {
            CompiledSchema schema = SchemaCompiler.compile(source);
            return new Accepted(source, schema, ir, SchemaState.of(schema, ir), Catalog.build(ir, schema));
        }
    }

    private SchemaFiles() {
    }

    public static Mono<Void> write(ObjectStore store, Accepted accepted) {
        return write(store, accepted, "");
    }

    /** Writes the three files, each under its name plus {@code suffix} ({@code ".staging"} for a schema apply). */
    public static Mono<Void> write(ObjectStore store, Accepted accepted, String suffix) {
        return store.put(SOURCE + suffix, accepted.source().getBytes(StandardCharsets.UTF_8))
                .then(store.put(IR + suffix, accepted.ir().toJson().getBytes(StandardCharsets.UTF_8)))
                .then(Mono.fromCallable(() -> JSON.writeValueAsBytes(accepted.state())))
                .flatMap(state -> store.put(STATE + suffix, state));
    }

    /** Whether the bytes of a state file name exactly {@code accepted}'s state (an unreadable file does not). */
    public static boolean describes(byte[] stateFile, Accepted accepted) {
        try {
            return JSON.readValue(stateFile, SchemaState.class).equals(accepted.state());
        } catch (java.io.IOException unreadable) {
            return false;
        }
    }

    /** Reads and cross-checks the live contract files of a root. */
    public static Mono<Accepted> read(ObjectStore store) {
        return read(store, "");
    }

    /** Reads and cross-checks the three files named with {@code suffix}. */
    public static Mono<Accepted> read(ObjectStore store, String suffix) {
        return Mono.zip(store.get(SOURCE + suffix), store.get(IR + suffix), store.get(STATE + suffix)).map(files -> {
            String root = store.rootUri();
            String source = text(files.getT1(), SOURCE + suffix, root, true);
            String irJson = text(files.getT2(), IR + suffix, root, false);
            String stateJson = text(files.getT3(), STATE + suffix, root, false);
            SchemaState state;
            SchemaIr ir;
            try {
                state = JSON.readValue(stateJson, SchemaState.class);
                ir = SchemaIr.fromJson(irJson);
            } catch (JsonProcessingException | IllegalArgumentException e) {
                throw new StorageFault("unreadable schema contract at " + root + ": " + e.getMessage(), e);
            }
            Accepted accepted;
            try {
                accepted = Accepted.compile(source, ir);
            } catch (RuntimeException e) {
                throw new StorageFault("the accepted schema at " + root + " does not compile or does not match "
                        + IR + ": " + e.getMessage(), e);
            }
            if (!accepted.state().equals(state)) {
                throw new StorageFault("schema contract files at " + root + " disagree: " + STATE + " says "
                        + state + " but " + SOURCE + " and " + IR + " give " + accepted.state(), null);
            }
            return accepted;
        });
    }

    private static String text(Optional<byte[]> bytes, String name, String root, boolean sourceFile) {
        if (bytes.isEmpty()) {
            if (sourceFile) {
                throw new NotFound("schema", name, "the graph at " + root + " has no " + name);
            }
            throw new StorageFault("the graph at " + root + " is missing " + name + "; refusing to open it", null);
        }
        return new String(bytes.get(), StandardCharsets.UTF_8);
    }
}

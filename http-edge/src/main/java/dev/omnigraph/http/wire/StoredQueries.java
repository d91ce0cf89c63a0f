package dev.omnigraph.http.wire;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.query.ParamDecl;
import dev.omnigraph.engine.query.QueryCompiler;
import dev.omnigraph.engine.query.QueryDecl;
import dev.omnigraph.engine.query.QueryFile;
import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.NotFound;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Stored queries of one graph: {@code <root>/__queries/<name>.gq} in the root's {@link ObjectStore} (a local
 * directory or an S3 prefix), one object per registered query name holding the source it was registered from.
 * Registration compiles every declaration against the graph's catalog and writes each object atomically (the
 * store's {@code put}); invocation picks the declaration by the object's name. Nothing here blocks: the server
 * composes the Monos into its responses, the CLI blocks on them on its main thread.
 */
public final class StoredQueries {
    public static final String DIRECTORY = "__queries";
    private static final String SUFFIX = ".gq";
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
    /** The query parser takes at most 1 Mi characters, at most 4 MiB of UTF-8: a larger object is refused. */
    private static final long MAX_FILE_BYTES = 4L << 20;

    /** One registered query: its name, its source and the parsed declaration. */
    public record Stored(String name, String source, QueryDecl decl) {
    }

    private StoredQueries() {
    }

    /** Every registered query of the graph whose store is {@code files}, sorted by name (none when nothing was registered). */
    public static Mono<List<Stored>> list(ObjectStore files) {
        return files.list(DIRECTORY + "/").flatMapMany(Flux::fromIterable)
                .filter(key -> key.endsWith(SUFFIX))
                .map(key -> key.substring(DIRECTORY.length() + 1, key.length() - SUFFIX.length()))
                .filter(name -> NAME.matcher(name).matches()) // no '/': skips keys nested below __queries/
                .concatMap(name -> read(files, name).flatMap(Mono::justOrEmpty))
                .collectList();
    }

    /** The query registered as {@code name}; {@code NotFound} when there is none (or the name is no identifier). */
    public static Mono<Stored> get(ObjectStore files, String name) {
        return Mono.defer(() -> NAME.matcher(name).matches()
                ? read(files, name).map(found -> found.orElseThrow(() -> missing(name)))
                : Mono.error(missing(name)));
    }

    /**
     * Registers every query {@code source} declares, each under its declared name (replacing an earlier one of
     * that name). Refuses, writing nothing, when a declaration does not type-check against {@code catalog}.
     */
    public static Mono<List<String>> add(ObjectStore files, String source, Catalog catalog) {
        return Mono.defer(() -> {
            if (source == null || source.isBlank()) throw new BadRequest("query source is empty");
            QueryFile file = QueryCompiler.parse(source);
            if (file.queries().isEmpty()) throw new BadRequest("query file contains no query");
            for (QueryDecl decl : file.queries()) {
                if (!NAME.matcher(decl.name()).matches()) {
                    throw new BadRequest("query name '" + decl.name() + "' is not an identifier of at most 64 characters");
                }
                QueryCompiler.check(decl, catalog);
            }
            byte[] bytes = source.getBytes(StandardCharsets.UTF_8);
            return Flux.fromIterable(file.queries()).concatMap(decl -> files.put(key(decl.name()), bytes))
                    .then(Mono.fromSupplier(file::names));
        });
    }

    /** Unregisters {@code name}; {@code NotFound} when it was not registered. */
    public static Mono<Void> remove(ObjectStore files, String name) {
        return Mono.defer(() -> NAME.matcher(name).matches()
                ? files.delete(key(name)).flatMap(existed -> existed ? Mono.<Void>empty() : Mono.error(missing(name)))
                : Mono.error(missing(name)));
    }

    /** {@code {queries:[{name, tool_name, description?, instruction?, mutation, params:[…]}]}}, as upstream lists them. */
    public static ObjectNode listing(List<Stored> stored) {
        ObjectNode out = Json.object();
        ArrayNode list = out.putArray("queries");
        for (Stored s : stored) {
            QueryDecl decl = s.decl();
            ObjectNode entry = list.addObject().put("name", s.name()).put("tool_name", s.name());
            if (decl.description() != null) entry.put("description", decl.description());
            if (decl.instruction() != null) entry.put("instruction", decl.instruction());
            entry.put("mutation", decl.isMutation());
            ArrayNode params = entry.putArray("params");
            for (ParamDecl p : decl.params()) {
                ObjectNode param = params.addObject().put("name", p.name());
                PropertyType type = p.type();
                if (type instanceof PropertyType.Scalar scalar) {
                    param.put("kind", kind(scalar.kind()));
                } else if (type instanceof PropertyType.ListOf listOf) {
                    param.put("kind", "list").put("item_kind", kind(listOf.element()));
                } else if (type instanceof PropertyType.VectorOf vector) {
                    param.put("kind", "vector").put("vector_dim", vector.dim());
                } else {
                    param.put("kind", "string");
                }
                param.put("nullable", p.optional());
            }
        }
        return out;
    }

    private static String kind(Enum<?> scalar) {
        return scalar.name().toLowerCase(Locale.ROOT);
    }

    private static String key(String name) {
        return DIRECTORY + "/" + name + SUFFIX;
    }

    private static Mono<java.util.Optional<Stored>> read(ObjectStore files, String name) {
        return files.get(key(name)).map(found -> found.map(bytes -> {
            if (bytes.length > MAX_FILE_BYTES) {
                throw new BadRequest("stored query '" + name + "' is larger than " + MAX_FILE_BYTES + " bytes");
            }
            String source = new String(bytes, StandardCharsets.UTF_8);
            return new Stored(name, source, QueryCompiler.parse(source).query(name));
        }));
    }

    private static NotFound missing(String name) {
        return new NotFound("query", name, "no stored query '" + name + "' (register it with: omnigraph queries add)");
    }
}

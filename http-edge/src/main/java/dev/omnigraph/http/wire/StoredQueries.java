package dev.omnigraph.http.wire;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.query.ParamDecl;
import dev.omnigraph.engine.query.QueryCompiler;
import dev.omnigraph.engine.query.QueryDecl;
import dev.omnigraph.engine.query.QueryFile;
import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.StorageFault;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Stored queries of one graph: {@code <root>/__queries/<name>.gq}, one file per registered query name holding the
 * source it was registered from. Registration compiles every declaration against the graph's catalog and writes
 * each file atomically (temp + rename); invocation picks the declaration by the file's name. Every method blocks
 * (file I/O): the server calls them on the storage scheduler, the CLI on its main thread.
 */
public final class StoredQueries {
    public static final String DIRECTORY = "__queries";
    private static final String SUFFIX = ".gq";
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
    /** The query parser takes at most 1 Mi characters, at most 4 MiB of UTF-8: a larger file is not read at all. */
    private static final long MAX_FILE_BYTES = 4L << 20;

    /** One registered query: its name, its source and the parsed declaration. */
    public record Stored(String name, String source, QueryDecl decl) {
    }

    private StoredQueries() {
    }

    /** Every registered query of the graph at {@code root}, sorted by name (none when nothing was registered). */
    public static List<Stored> list(Path root) {
        Path dir = root.resolve(DIRECTORY);
        if (!Files.isDirectory(dir)) return List.of();
        List<Stored> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.sorted().toList()) {
                String fileName = file.getFileName().toString();
                if (!fileName.endsWith(SUFFIX)) continue;
                String name = fileName.substring(0, fileName.length() - SUFFIX.length());
                if (NAME.matcher(name).matches()) out.add(read(file, name));
            }
        } catch (IOException e) {
            throw new StorageFault("cannot list " + dir, e);
        }
        return out;
    }

    /** The query registered as {@code name}; {@code NotFound} when there is none (or the name is no identifier). */
    public static Stored get(Path root, String name) {
        if (!NAME.matcher(name).matches()) throw missing(name);
        Path file = root.resolve(DIRECTORY).resolve(name + SUFFIX);
        if (!Files.isRegularFile(file)) throw missing(name);
        return read(file, name);
    }

    /**
     * Registers every query {@code source} declares, each under its declared name (replacing an earlier one of
     * that name). Refuses, writing nothing, when a declaration does not type-check against {@code catalog}.
     */
    public static List<String> add(Path root, String source, Catalog catalog) {
        if (source == null || source.isBlank()) throw new BadRequest("query source is empty");
        QueryFile file = QueryCompiler.parse(source);
        if (file.queries().isEmpty()) throw new BadRequest("query file contains no query");
        for (QueryDecl decl : file.queries()) {
            if (!NAME.matcher(decl.name()).matches()) {
                throw new BadRequest("query name '" + decl.name() + "' is not an identifier of at most 64 characters");
            }
            QueryCompiler.check(decl, catalog);
        }
        Path dir = root.resolve(DIRECTORY);
        try {
            Files.createDirectories(dir);
            for (QueryDecl decl : file.queries()) {
                Path temp = Files.writeString(dir.resolve("." + decl.name() + SUFFIX + ".tmp"), source, StandardCharsets.UTF_8);
                try {
                    Files.move(temp, dir.resolve(decl.name() + SUFFIX), StandardCopyOption.ATOMIC_MOVE,
                            StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temp, dir.resolve(decl.name() + SUFFIX), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            throw new StorageFault("cannot write stored queries under " + dir, e);
        }
        return file.names();
    }

    /** Unregisters {@code name}; {@code NotFound} when it was not registered. */
    public static void remove(Path root, String name) {
        if (!NAME.matcher(name).matches()) throw missing(name);
        try {
            if (!Files.deleteIfExists(root.resolve(DIRECTORY).resolve(name + SUFFIX))) throw missing(name);
        } catch (IOException e) {
            throw new StorageFault("cannot remove stored query " + name, e);
        }
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

    private static Stored read(Path file, String name) {
        try {
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw new BadRequest("stored query '" + name + "' is larger than " + MAX_FILE_BYTES + " bytes");
            }
            String source = Files.readString(file, StandardCharsets.UTF_8);
            return new Stored(name, source, QueryCompiler.parse(source).query(name));
        } catch (NoSuchFileException e) {
            throw missing(name);
        } catch (IOException e) {
            throw new StorageFault("cannot read stored query " + file, e);
        }
    }

    private static NotFound missing(String name) {
        return new NotFound("query", name, "no stored query '" + name + "' (register it with: omnigraph queries add)");
    }
}

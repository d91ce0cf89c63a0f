package dev.omnigraph.storage.root;

import dev.omnigraph.storage.LanceStorageOptions;
import dev.omnigraph.storage.ObjectKeys;
import dev.omnigraph.storage.error.BadRequest;
import java.net.URI;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Where a graph lives: a local directory (a plain path or a {@code file://} URI) or an S3 prefix
 * ({@code s3://bucket/prefix}). Tables, {@code __manifest}, the recovery audit, sidecars and schema files all live
 * under it; {@link #uri()} is what Lance is given and what dataset paths are resolved against.
 */
public sealed interface GraphRoot permits GraphRoot.Local, GraphRoot.S3 {

    /** The root as Lance and the engine address it: the absolute directory, or {@code s3://bucket[/prefix]}. */
    String uri();

    /** The root as a URI for users and wire bodies ({@code file:///…} or {@code s3://…}). */
    String displayUri();

    /** The Lance storage options every dataset under this root needs (none for local roots), resolved now. */
    Map<String, String> lanceOptions();

    /**
     * The source of those options to register ({@code LanceStorageOptions.register}): asked on every lookup, so
     * credentials that expire are resolved again ({@link CredentialsSource}).
     */
    Supplier<LanceStorageOptions.Current> lanceOptionsSource();

    /** A local directory. Keeps the path as given; callers canonicalise it. */
    record Local(Path directory) implements GraphRoot {
        public Local {
            Objects.requireNonNull(directory, "directory");
        }

        @Override
        public String uri() {
            return directory.toString();
        }

        @Override
        public String displayUri() {
            return directory.toUri().toString();
        }

        @Override
        public Map<String, String> lanceOptions() {
            return Map.of();
        }

        @Override
        public Supplier<LanceStorageOptions.Current> lanceOptionsSource() {
            return () -> new LanceStorageOptions.Current(Map.of(), java.util.Optional.empty());
        }

        @Override
        public String toString() {
            return directory.toString();
        }
    }

    /** An S3 bucket and key prefix (no leading or trailing '/'; empty for the bucket's top). */
    record S3(String bucket, String prefix, S3Settings settings) implements GraphRoot {
        private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

        public S3 {
            Objects.requireNonNull(settings, "settings");
            if (bucket == null || !BUCKET.matcher(bucket).matches()) {
                throw new BadRequest("graph root: '" + bucket + "' is not a valid S3 bucket name"
                        + " (3-63 lower-case letters, digits, '.' or '-')");
            }
            Objects.requireNonNull(prefix, "prefix");
            if (!prefix.isEmpty()) {
                ObjectKeys.problem(prefix, false).ifPresent(why -> {
                    throw new BadRequest("graph root: the S3 prefix '" + prefix.replace('\0', '?') + "' is not valid: " + why);
                });
            }
        }

        @Override
        public String uri() {
            return "s3://" + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
        }

        @Override
        public String displayUri() {
            return uri();
        }

        @Override
        public Map<String, String> lanceOptions() {
            return settings.lanceOptions();
        }

        @Override
        public Supplier<LanceStorageOptions.Current> lanceOptionsSource() {
            return settings::lanceOptionsNow;
        }

        /** The object key of {@code relative} (a '/'-separated key below the root). */
        public String key(String relative) {
            return prefix.isEmpty() ? relative : prefix + "/" + relative;
        }

        @Override
        public String toString() {
            return uri();
        }
    }

    /** Parses a root, taking S3 settings from the environment when it is an {@code s3://} URI. */
    static GraphRoot parse(String text) {
        return parse(text, S3Settings::fromEnvironment);
    }

    /**
     * Parses {@code s3://bucket[/prefix]}, {@code file:///dir} or a plain path. Other schemes, and an
     * {@code s3://} URI with a query, fragment or credentials in it, are a {@link BadRequest}.
     */
    static GraphRoot parse(String text, Supplier<S3Settings> settings) {
        Objects.requireNonNull(text, "text");
        if (text.isBlank()) {
            throw new BadRequest("graph root: empty");
        }
        int colon = text.indexOf("://");
        if (colon < 0) {
            return new Local(path(text, text));
        }
        String scheme = text.substring(0, colon);
        String rest = text.substring(colon + 3);
        switch (scheme) {
            case "s3" -> {
                if (rest.contains("?") || rest.contains("#") || rest.contains("@")) {
                    throw new BadRequest("graph root: an s3:// URI takes no query, fragment or credentials;"
                            + " pass S3 settings as options");
                }
                int slash = rest.indexOf('/');
                String bucket = slash < 0 ? rest : rest.substring(0, slash);
                String prefix = slash < 0 ? "" : rest.substring(slash + 1);
                while (prefix.endsWith("/")) {
                    prefix = prefix.substring(0, prefix.length() - 1);
                }
                return new S3(bucket, prefix, settings.get());
            }
            case "file" -> {
                try {
                    return new Local(Path.of(URI.create(text)));
                } catch (IllegalArgumentException e) {
                    throw new BadRequest("graph root: '" + text + "' is not a valid file:// URI (" + e.getMessage() + ")");
                }
            }
            default -> throw new BadRequest("graph root: scheme '" + scheme
                    + "' is not supported (use a path, file:// or s3://)");
        }
    }

    private static Path path(String text, String shown) {
        try {
            return Path.of(text);
        } catch (InvalidPathException e) {
            throw new BadRequest("graph root: '" + shown + "' is not a valid path (" + e.getReason() + ")");
        }
    }
}

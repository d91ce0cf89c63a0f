package dev.omnigraph.storage.root;

import dev.omnigraph.storage.error.BadRequest;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import dev.omnigraph.storage.LanceStorageOptions;

/**
 * How to reach an S3-compatible endpoint: an optional endpoint (absent: AWS itself), the region, path-style
 * addressing, and where credentials come from ({@link CredentialsSource}: fixed keys, the AWS SDK's default provider
 * chain, or a supplier with an expiry), asked again whenever a storage call needs them.
 */
public record S3Settings(Optional<URI> endpoint, String region, boolean pathStyle, CredentialsSource credentials) {

    /** Static credentials; never printed. */
    public record Credentials(String accessKeyId, String secretAccessKey, Optional<String> sessionToken) {
        public Credentials {
            Objects.requireNonNull(accessKeyId, "accessKeyId");
            Objects.requireNonNull(secretAccessKey, "secretAccessKey");
            Objects.requireNonNull(sessionToken, "sessionToken");
        }

        @Override
        public String toString() {
            return "Credentials[" + accessKeyId + ", secret redacted]";
        }
    }

    /** Fixed credentials, or (empty) the AWS SDK's default provider chain. */
    public S3Settings(Optional<URI> endpoint, String region, boolean pathStyle, Optional<Credentials> credentials) {
        this(endpoint, region, pathStyle, credentials.map(CredentialsSource::fixed)
                .orElseGet(CredentialsSource::providerChain));
    }

    public S3Settings {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(credentials, "credentials");
        if (region == null || region.isBlank()) {
            throw new BadRequest("s3 region: empty");
        }
        endpoint.ifPresent(uri -> {
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw new BadRequest("s3 endpoint: '" + uri + "' is not an http:// or https:// URL");
            }
        });
    }

    /**
     * Settings from the environment: endpoint {@code OMNIGRAPH_S3_ENDPOINT}, else {@code AWS_ENDPOINT_URL_S3}, else
     * {@code AWS_ENDPOINT_URL}; region {@code OMNIGRAPH_S3_REGION}, else {@code AWS_REGION}, else
     * {@code AWS_DEFAULT_REGION}, else us-east-1; path-style {@code OMNIGRAPH_S3_PATH_STYLE} (default: on when an
     * endpoint is set); credentials from the default provider chain.
     */
    public static S3Settings fromEnvironment() {
        return from(System.getenv(), Optional.empty(), Optional.empty(), Optional.empty());
    }

    /** As {@link #fromEnvironment()}, with explicit values (from flags or config) taking precedence. */
    public static S3Settings from(Map<String, String> env, Optional<String> endpoint, Optional<String> region,
                                  Optional<Boolean> pathStyle) {
        Optional<String> endpointText = endpoint.or(() -> first(env, "OMNIGRAPH_S3_ENDPOINT", "AWS_ENDPOINT_URL_S3",
                "AWS_ENDPOINT_URL"));
        Optional<URI> endpointUri = endpointText.map(text -> {
            try {
                return URI.create(text);
            } catch (IllegalArgumentException e) {
                throw new BadRequest("s3 endpoint: '" + text + "' is not a URL (" + e.getMessage() + ")");
            }
        });
        String regionName = region.or(() -> first(env, "OMNIGRAPH_S3_REGION", "AWS_REGION", "AWS_DEFAULT_REGION"))
                .orElse("us-east-1");
        boolean path = pathStyle.or(() -> first(env, "OMNIGRAPH_S3_PATH_STYLE").map(S3Settings::bool))
                .orElse(endpointUri.isPresent());
        return new S3Settings(endpointUri, regionName, path, CredentialsSource.providerChain());
    }

    /** The same settings with static credentials. */
    public S3Settings withCredentials(Credentials given) {
        return withCredentials(CredentialsSource.fixed(given));
    }

    /** The same settings with credentials from {@code source} (for example a supplier of expiring ones). */
    public S3Settings withCredentials(CredentialsSource source) {
        return new S3Settings(endpoint, region, pathStyle, source);
    }

    /**
     * The credentials to sign with now (blocking: the source may read files or ask an instance metadata service,
     * so call it on a storage thread).
     */
    public Credentials resolveCredentials() {
        return credentials.current().credentials();
    }

    /** Lance's (object_store's) option names for these settings, credentials resolved now (see above). */
    public Map<String, String> lanceOptions() {
        return lanceOptionsNow().options();
    }

    /** As {@link #lanceOptions()}, with the expiry of the credentials in them. */
    public LanceStorageOptions.Current lanceOptionsNow() {
        CredentialsSource.Expiring now = credentials.current();
        Map<String, String> options = new HashMap<>();
        options.put("aws_region", region);
        endpoint.ifPresent(uri -> {
            options.put("aws_endpoint", uri.toString());
            options.put("allow_http", Boolean.toString("http".equals(uri.getScheme())));
        });
        options.put("aws_virtual_hosted_style_request", Boolean.toString(!pathStyle));
        Credentials resolved = now.credentials();
        options.put("aws_access_key_id", resolved.accessKeyId());
        options.put("aws_secret_access_key", resolved.secretAccessKey());
        resolved.sessionToken().ifPresent(token -> options.put("aws_session_token", token));
        return new LanceStorageOptions.Current(options, now.expiresAt());
    }

    private static Optional<String> first(Map<String, String> env, String... names) {
        for (String name : names) {
            String value = env.get(name);
            if (value != null && !value.isBlank()) {
                return Optional.of(value.trim());
            }
        }
        return Optional.empty();
    }

    private static boolean bool(String text) {
        return switch (text.toLowerCase(java.util.Locale.ROOT)) {
            case "true", "1", "yes" -> true;
            case "false", "0", "no" -> false;
            default -> throw new BadRequest("OMNIGRAPH_S3_PATH_STYLE: '" + text + "' is not true or false");
        };
    }
}

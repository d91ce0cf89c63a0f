package dev.omnigraph.storage.root;

import dev.omnigraph.storage.error.BadRequest;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;

/**
 * How to reach an S3-compatible endpoint: an optional endpoint (absent: AWS itself), the region, path-style
 * addressing, and credentials (absent: the AWS SDK's default provider chain — environment, system properties,
 * profile files, container and instance roles — resolved when a root is opened).
 */
public record S3Settings(Optional<URI> endpoint, String region, boolean pathStyle, Optional<Credentials> credentials) {

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
        return new S3Settings(endpointUri, regionName, path, Optional.empty());
    }

    /** The same settings with static credentials. */
    public S3Settings withCredentials(Credentials given) {
        return new S3Settings(endpoint, region, pathStyle, Optional.of(given));
    }

    /**
     * The credentials to sign with: the static ones, or the default provider chain's (blocking: it may read files
     * or ask an instance metadata service, so call it on a storage thread).
     */
    public Credentials resolveCredentials() {
        return credentials.orElseGet(() -> {
            AwsCredentials found = DefaultCredentialsProvider.builder().build().resolveCredentials();
            Optional<String> token = found instanceof AwsSessionCredentials session
                    ? Optional.of(session.sessionToken()) : Optional.empty();
            return new Credentials(found.accessKeyId(), found.secretAccessKey(), token);
        });
    }

    /** Lance's (object_store's) option names for these settings, credentials resolved (see above). */
    public Map<String, String> lanceOptions() {
        Map<String, String> options = new HashMap<>();
        options.put("aws_region", region);
        endpoint.ifPresent(uri -> {
            options.put("aws_endpoint", uri.toString());
            options.put("allow_http", Boolean.toString("http".equals(uri.getScheme())));
        });
        options.put("aws_virtual_hosted_style_request", Boolean.toString(!pathStyle));
        Credentials resolved = resolveCredentials();
        options.put("aws_access_key_id", resolved.accessKeyId());
        options.put("aws_secret_access_key", resolved.secretAccessKey());
        resolved.sessionToken().ifPresent(token -> options.put("aws_session_token", token));
        return Map.copyOf(options);
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

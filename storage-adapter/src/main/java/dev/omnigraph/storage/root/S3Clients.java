package dev.omnigraph.storage.root;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/**
 * One synchronous S3 client per distinct {@link S3Settings} in this process. The sync client over the JDK's URL
 * connection brings no Netty or Apache HTTP line next to Reactor Netty's; its calls block, so they run on the
 * storage scheduler like every other storage call. Clients are kept for the life of the process (they hold no
 * threads).
 */
final class S3Clients {
    private static final Map<S3Settings, S3Client> CLIENTS = new ConcurrentHashMap<>();

    private S3Clients() {
    }

    static S3Client forSettings(S3Settings settings) {
        return CLIENTS.computeIfAbsent(settings, S3Clients::build);
    }

    private static S3Client build(S3Settings settings) {
        var builder = S3Client.builder()
                .httpClient(UrlConnectionHttpClient.create())
                .region(Region.of(settings.region()))
                .forcePathStyle(settings.pathStyle())
                .credentialsProvider(credentials(settings))
                // S3-compatible servers often reject the SDK's default trailing checksums; send them only when
                // an operation requires one.
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                // No "Expect: 100-continue" on PUTs: a server may answer a failed condition (412) before reading
                // the body, and the URL connection then reports "error writing request body" (a fault after
                // retries) instead of the 412 the conditional writes are built on. Our bodies are small.
                .serviceConfiguration(S3Configuration.builder().expectContinueEnabled(false).build());
        settings.endpoint().ifPresent(builder::endpointOverride);
        return builder.build();
    }

    /**
     * Fixed keys as they are; the provider chain as the SDK's own provider (it refreshes session credentials
     * itself); a supplier through its source, which asks again near expiry.
     */
    private static AwsCredentialsProvider credentials(S3Settings settings) {
        CredentialsSource source = settings.credentials();
        if (source instanceof CredentialsSource.Fixed fixed) {
            return StaticCredentialsProvider.create(sdk(fixed.credentials()));
        }
        if (source instanceof CredentialsSource.ProviderChain chain) {
            return chain.provider();
        }
        return () -> sdk(source.current().credentials());
    }

    private static AwsCredentials sdk(S3Settings.Credentials given) {
        return given.sessionToken().<AwsCredentials>map(
                        token -> AwsSessionCredentials.create(given.accessKeyId(), given.secretAccessKey(), token))
                .orElseGet(() -> AwsBasicCredentials.create(given.accessKeyId(), given.secretAccessKey()));
    }
}

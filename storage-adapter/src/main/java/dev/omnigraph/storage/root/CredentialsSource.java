package dev.omnigraph.storage.root;

import dev.omnigraph.storage.CredentialRefresh;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;

/**
 * Where the S3 credentials of a root come from, asked whenever a storage call needs them (Lance opens, S3 requests):
 * fixed keys, the AWS SDK's default provider chain (environment, profiles, SSO, web identity, container and instance
 * roles — it refreshes session credentials itself), or a supplier of the caller's that says when its credentials
 * expire and is asked again within {@link CredentialRefresh#margin()} of that. {@link #current()} may block (files,
 * metadata services, the caller's supplier): call it on a storage thread.
 */
public sealed interface CredentialsSource
        permits CredentialsSource.Fixed, CredentialsSource.ProviderChain, CredentialsSource.Supplied {

    /** The credentials to sign with now and when they expire (empty: they do not). */
    Expiring current();

    /** Credentials and their expiry. */
    record Expiring(S3Settings.Credentials credentials, Optional<Instant> expiresAt) {
        public Expiring {
            Objects.requireNonNull(credentials, "credentials");
            Objects.requireNonNull(expiresAt, "expiresAt");
        }

        public static Expiring never(S3Settings.Credentials credentials) {
            return new Expiring(credentials, Optional.empty());
        }

        public static Expiring at(S3Settings.Credentials credentials, Instant expiresAt) {
            return new Expiring(credentials, Optional.of(expiresAt));
        }
    }

    static CredentialsSource fixed(S3Settings.Credentials credentials) {
        return new Fixed(credentials);
    }

    static CredentialsSource providerChain() {
        return ProviderChain.INSTANCE;
    }

    /** The caller's supplier, asked once and then again whenever what it gave is close to expiry. */
    static CredentialsSource supplied(Supplier<Expiring> supplier) {
        return new Supplied(supplier);
    }

    /** Keys that do not change. */
    record Fixed(S3Settings.Credentials credentials) implements CredentialsSource {
        public Fixed {
            Objects.requireNonNull(credentials, "credentials");
        }

        @Override
        public Expiring current() {
            return Expiring.never(credentials);
        }
    }

    /** The AWS SDK's default provider chain; one per process, built on first use. */
    final class ProviderChain implements CredentialsSource {
        static final ProviderChain INSTANCE = new ProviderChain();
        private volatile DefaultCredentialsProvider provider;

        private ProviderChain() {
        }

        DefaultCredentialsProvider provider() {
            DefaultCredentialsProvider p = provider;
            if (p == null) {
                synchronized (this) {
                    if (provider == null) {
                        provider = DefaultCredentialsProvider.builder().build();
                    }
                    p = provider;
                }
            }
            return p;
        }

        @Override
        public Expiring current() {
            AwsCredentials found = provider().resolveCredentials();
            Optional<String> token = found instanceof AwsSessionCredentials session
                    ? Optional.of(session.sessionToken()) : Optional.empty();
            return new Expiring(new S3Settings.Credentials(found.accessKeyId(), found.secretAccessKey(), token),
                    found.expirationTime());
        }

        @Override
        public String toString() {
            return "ProviderChain";
        }
    }

    /** A caller's supplier with the last answer kept until it is close to expiry. */
    final class Supplied implements CredentialsSource {
        private final Supplier<Expiring> supplier;
        private Expiring last;

        Supplied(Supplier<Expiring> supplier) {
            this.supplier = Objects.requireNonNull(supplier, "supplier");
        }

        @Override
        public synchronized Expiring current() {
            if (last == null || CredentialRefresh.due(last.expiresAt())) {
                last = Objects.requireNonNull(supplier.get(), "credentials supplier answered null");
            }
            return last;
        }

        @Override
        public String toString() {
            return "Supplied";
        }
    }
}

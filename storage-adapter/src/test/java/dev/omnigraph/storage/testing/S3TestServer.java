package dev.omnigraph.storage.testing;

import dev.omnigraph.storage.root.GraphRoot;
import dev.omnigraph.storage.root.S3Settings;
import java.io.InputStream;
import java.net.URI;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.gaul.s3proxy.AccessGrant;
import org.gaul.s3proxy.S3ErrorCode;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.S3ProxyException;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

/**
 * A real S3-compatible server (S3Proxy over an in-memory blob store) on 127.0.0.1, in this JVM, with SigV4
 * authentication. S3Proxy's in-memory store creates atomically under {@code If-None-Match: *} but does not
 * condition a replace on {@code If-Match} itself (see {@link Conditions#IF_MATCH_RACY}); by default this server
 * adds that, comparing the ETag and storing under one lock per key, as AWS S3 behaves. {@link Conditions#IGNORED}
 * makes it an endpoint that accepts {@code If-None-Match} and ignores it, as some S3-compatible stores do. Every
 * PUT passes through a {@link PutHook} (tests use it to order racing writers) and is counted.
 */
public final class S3TestServer implements AutoCloseable {
    public static final String ACCESS_KEY = "omnigraph-test";
    public static final String SECRET_KEY = "omnigraph-test-secret";

    /**
     * How the server treats conditional PUTs. {@code HONOURED}: both atomically, as AWS S3 does. {@code IGNORED}:
     * {@code If-None-Match} is dropped. {@code IF_MATCH_RACY}: stock S3Proxy 4.1.0 on its transient and filesystem
     * stores, whose request handler compares {@code If-Match} with the current ETag and then stores unconditionally,
     * so two PUTs naming one ETag can both pass the comparison and both land.
     */
    public enum Conditions { HONOURED, IGNORED, IF_MATCH_RACY }

    private final S3Proxy proxy;
    private final BlobStore store;
    private final Set<String> buckets = ConcurrentHashMap.newKeySet();
    private final AtomicInteger puts = new AtomicInteger();
    private volatile PutHook hook = new PutHook() { };

    /** Runs on the server's request thread around every PUT (it may block there to order racing writers). */
    public interface PutHook {
        default void before(String key) {
        }

        /** As {@link #before(String)}, for hooks that need the request's conditions. */
        default void before(PutObjectRequest request) {
            before(request.key());
        }

        default void after(String key, boolean stored) {
        }
    }

    private S3TestServer(Conditions conditions) throws Exception {
        this.store = new Hooked(new TransientNio2BlobStore(), conditions);
        this.proxy = S3Proxy.builder().blobStore(store)
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
                .build();
        proxy.start();
        if (!"STARTED".equals(proxy.getState())) {
            throw new IllegalStateException("S3Proxy did not start: " + proxy.getState());
        }
    }

    public static S3TestServer start() throws Exception {
        return new S3TestServer(Conditions.HONOURED);
    }

    public static S3TestServer start(Conditions conditions) throws Exception {
        return new S3TestServer(conditions);
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    /** Settings that reach this server with its static credentials. */
    public S3Settings settings() {
        return new S3Settings(Optional.of(endpoint()), "us-east-1", true,
                Optional.of(new S3Settings.Credentials(ACCESS_KEY, SECRET_KEY, Optional.empty())));
    }

    /** A fresh root {@code s3://<bucket>/<prefix>} (the bucket is created on first use). */
    public GraphRoot.S3 root(String bucket, String prefix) {
        if (buckets.add(bucket)) {
            store.createContainer(bucket);
        }
        return new GraphRoot.S3(bucket, prefix, settings());
    }

    /** The environment a child JVM needs to reach this server through {@code S3Settings.fromEnvironment}. */
    public java.util.Map<String, String> environment() {
        return java.util.Map.of("OMNIGRAPH_S3_ENDPOINT", endpoint().toString(), "AWS_REGION", "us-east-1",
                "AWS_ACCESS_KEY_ID", ACCESS_KEY, "AWS_SECRET_ACCESS_KEY", SECRET_KEY);
    }

    /**
     * From now on, accepts requests signed with this key pair only (a credential rotation: requests signed with any
     * other key, the constructor's included, are refused with {@code InvalidAccessKeyId}).
     */
    public void acceptOnly(String accessKey, String secretKey) {
        proxy.setBlobStoreLocator((identity, container, blob) ->
                accessKey.equals(identity) ? new AccessGrant(secretKey, store) : null);
    }

    public void hook(PutHook hook) {
        this.hook = hook;
    }

    public int puts() {
        return puts.get();
    }

    @Override
    public void close() throws Exception {
        proxy.stop();
    }

    private final class Hooked extends ForwardingBlobStore {
        private final Conditions conditions;
        private final java.util.Map<String, Object> keyLocks = new ConcurrentHashMap<>();

        Hooked(BlobStore delegate, Conditions conditions) {
            super(delegate);
            this.conditions = conditions;
        }

        @Override
        public PutObjectResponse putBlob(PutObjectRequest request, InputStream body) {
            puts.incrementAndGet();
            PutObjectRequest effective = conditions == Conditions.IGNORED
                    ? request.toBuilder().ifNoneMatch(null).build() : request;
            PutHook current = hook;
            current.before(request);
            boolean stored = false;
            try {
                PutObjectResponse response;
                if (conditions == Conditions.HONOURED && request.ifMatch() != null) {
                    synchronized (keyLocks.computeIfAbsent(request.bucket() + "/" + request.key(), k -> new Object())) {
                        HeadObjectResponse head = blobMetadataIfPresent(request.bucket(), request.key());
                        if (head == null) {
                            throw new S3ProxyException(S3ErrorCode.NO_SUCH_KEY);
                        }
                        if (!unquoted(head.eTag()).equals(unquoted(request.ifMatch()))) {
                            throw new S3ProxyException(S3ErrorCode.PRECONDITION_FAILED);
                        }
                        response = super.putBlob(effective, body);
                    }
                } else {
                    response = super.putBlob(effective, body);
                }
                stored = true;
                return response;
            } finally {
                current.after(request.key(), stored);
            }
        }

        private static String unquoted(String etag) {
            return etag == null ? "" : etag.replace("\"", "");
        }
    }
}

package dev.omnigraph.storage.root;

import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.StorageScheduler;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.StorageFault;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import reactor.core.publisher.Mono;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@link ObjectStore} on an S3 prefix. A PUT is atomic on S3 (readers see the old object or the new one) and
 * durable once acknowledged, so no temp object is needed; {@link #putIfAbsent} is a conditional PUT with
 * {@code If-None-Match: *}, which the endpoint must honour — {@link #requireConditionalWrites} checks that once
 * per bucket and process before anything relies on it. Every call is one or two round trips on the storage
 * scheduler.
 */
public final class S3ObjectStore implements ObjectStore {
    private static final int PRECONDITION_FAILED = 412;
    /** S3 answers 409 while another conditional write of the same key is in flight: try again. */
    private static final int CONDITIONAL_CONFLICT = 409;
    private static final int CONFLICT_RETRIES = 5;
    private static final Set<String> VERIFIED = ConcurrentHashMap.newKeySet();

    private final GraphRoot.S3 root;
    private final S3Client client;
    private final StorageScheduler storage;

    public S3ObjectStore(GraphRoot.S3 root, StorageScheduler storage) {
        this.root = root;
        this.client = S3Clients.forSettings(root.settings());
        this.storage = storage;
    }

    @Override
    public String rootUri() {
        return root.uri();
    }

    @Override
    public Mono<Void> put(String key, byte[] bytes) {
        return storage.run(() -> call("put", key, () -> client.putObject(
                PutObjectRequest.builder().bucket(root.bucket()).key(objectKey(key)).build(), RequestBody.fromBytes(bytes))));
    }

    @Override
    public Mono<Boolean> putIfAbsent(String key, byte[] bytes) {
        return storage.call(() -> createIfAbsent(key, bytes));
    }

    @Override
    public Mono<Optional<byte[]>> get(String key) {
        return storage.call(() -> {
            try {
                return Optional.of(client.getObjectAsBytes(b -> b.bucket(root.bucket()).key(objectKey(key))).asByteArray());
            } catch (NoSuchKeyException absent) {
                return Optional.<byte[]>empty();
            } catch (SdkException e) {
                throw fault("get", key, e);
            }
        });
    }

    @Override
    public Mono<List<String>> list(String prefix) {
        return storage.call(() -> {
            String dir = prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/";
            if (!dir.isEmpty()) {
                objectKey(dir.substring(0, dir.length() - 1));
            }
            String strip = root.prefix().isEmpty() ? "" : root.prefix() + "/";
            List<String> keys = new ArrayList<>();
            String token = null;
            do {
                ListObjectsV2Request.Builder request = ListObjectsV2Request.builder().bucket(root.bucket())
                        .prefix(strip + dir);
                if (token != null) {
                    request.continuationToken(token);
                }
                ListObjectsV2Response page = call("list", prefix, () -> client.listObjectsV2(request.build()));
                for (S3Object object : page.contents()) {
                    keys.add(object.key().substring(strip.length()));
                }
                token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
            } while (token != null);
            keys.sort(null);
            return List.copyOf(keys);
        });
    }

    @Override
    public Mono<Boolean> delete(String key) {
        return storage.call(() -> {
            // S3's DELETE does not say whether the object existed.
            boolean existed = headExists(key);
            if (existed) {
                call("delete", key, () -> client.deleteObject(b -> b.bucket(root.bucket()).key(objectKey(key))));
            }
            return existed;
        });
    }

    @Override
    public Mono<Boolean> exists(String key) {
        return storage.call(() -> headExists(key));
    }

    /**
     * Fails with a {@link StorageFault} unless the endpoint refuses a second {@code If-None-Match: *} PUT of one
     * key: without that, two writers can both "create" the same object and nothing the protocol builds on it
     * (claims, Lance's own manifest commits) is safe. Checked once per endpoint and bucket in this process.
     */
    public Mono<Void> requireConditionalWrites() {
        String verifiedKey = root.settings().endpoint().map(Object::toString).orElse("aws") + "|" + root.bucket();
        if (VERIFIED.contains(verifiedKey)) {
            return Mono.empty();
        }
        return storage.run(() -> {
            String probe = "__probe/conditional-write-" + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36);
            byte[] mark = probe.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            boolean first = createIfAbsent(probe, mark);
            boolean second = createIfAbsent(probe, new byte[] {0});
            call("delete", probe, () -> client.deleteObject(b -> b.bucket(root.bucket()).key(objectKey(probe))));
            if (!first || second) {
                throw new StorageFault("refusing to use " + root.uri() + ": the S3 endpoint "
                        + root.settings().endpoint().map(Object::toString).orElse("(AWS)")
                        + " does not honour conditional writes (a PUT with If-None-Match: * "
                        + (second ? "replaced an existing object" : "of a new key was refused")
                        + "), so concurrent writers could overwrite each other's commits", null);
            }
            VERIFIED.add(verifiedKey);
        });
    }

    private boolean createIfAbsent(String key, byte[] bytes) {
        PutObjectRequest request = PutObjectRequest.builder().bucket(root.bucket()).key(objectKey(key))
                .ifNoneMatch("*").build();
        for (int attempt = 0; ; attempt++) {
            try {
                client.putObject(request, RequestBody.fromBytes(bytes));
                return true;
            } catch (S3Exception e) {
                if (e.statusCode() == PRECONDITION_FAILED) {
                    return ownEarlierAttempt(key, bytes);
                }
                if (e.statusCode() != CONDITIONAL_CONFLICT || attempt >= CONFLICT_RETRIES) {
                    throw fault("putIfAbsent", key, e);
                }
            } catch (SdkException e) {
                throw fault("putIfAbsent", key, e);
            }
        }
    }

    /**
     * A 412 can answer the SDK's retry of our own PUT whose first attempt landed but whose response was lost. The
     * bytes callers create are unique (claim and sidecar ids), so finding exactly ours means this call created it.
     */
    private boolean ownEarlierAttempt(String key, byte[] bytes) {
        try {
            byte[] found = client.getObjectAsBytes(b -> b.bucket(root.bucket()).key(objectKey(key))).asByteArray();
            return java.util.Arrays.equals(found, bytes);
        } catch (NoSuchKeyException deleted) {
            return false;
        } catch (SdkException e) {
            throw fault("putIfAbsent", key, e);
        }
    }

    private boolean headExists(String key) {
        try {
            client.headObject(b -> b.bucket(root.bucket()).key(objectKey(key)));
            return true;
        } catch (NoSuchKeyException absent) {
            return false;
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return false;
            }
            throw fault("exists", key, e);
        } catch (SdkException e) {
            throw fault("exists", key, e);
        }
    }

    /** Keys are relative, '/'-separated, without empty, '.' or '..' segments (they cannot escape the root). */
    private String objectKey(String key) {
        if (key.isEmpty() || key.startsWith("/")) {
            throw new BadRequest("object key '" + key + "' must be a non-empty relative path");
        }
        for (String segment : key.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw new BadRequest("object key '" + key + "' has an empty, '.' or '..' segment");
            }
        }
        return root.key(key);
    }

    private <T> T call(String operation, String key, java.util.function.Supplier<T> request) {
        try {
            return request.get();
        } catch (SdkException e) {
            throw fault(operation, key, e);
        }
    }

    private StorageFault fault(String operation, String key, SdkException e) {
        return new StorageFault(operation + " of " + root.uri() + "/" + key + " failed: " + e.getMessage(), e);
    }
}

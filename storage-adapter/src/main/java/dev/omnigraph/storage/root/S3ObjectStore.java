package dev.omnigraph.storage.root;

import dev.omnigraph.storage.ObjectKeys;
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
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
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
    private static final int NOT_FOUND = 404;
    /** S3 answers 409 while another conditional write of the same key is in flight: try again. */
    private static final int CONDITIONAL_CONFLICT = 409;
    private static final int CONFLICT_RETRIES = 5;
    /** How many concurrent If-Match PUTs the open-time probe races. */
    private static final int RACERS = 4;
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
        return storage.call(() -> read("get", key).map(ResponseBytes::asByteArray));
    }

    /** The version token is the object's ETag: S3 changes it on every PUT whose bytes differ. */
    @Override
    public Mono<Optional<Versioned>> getVersioned(String key) {
        return storage.call(() -> read("getVersioned", key)
                .map(found -> new Versioned(found.asByteArray(), found.response().eTag())));
    }

    /** One GET of {@code key}; empty when it does not exist. */
    private Optional<ResponseBytes<GetObjectResponse>> read(String operation, String key) {
        try {
            return Optional.of(client.getObjectAsBytes(b -> b.bucket(root.bucket()).key(objectKey(key))));
        } catch (NoSuchKeyException absent) {
            return Optional.empty();
        } catch (SdkException e) {
            throw fault(operation, key, e);
        }
    }

    /**
     * Whether {@code key} holds exactly {@code bytes}. The bytes callers write conditionally are unique (claim and
     * sidecar ids; a lease record's epoch and expiry), so finding exactly ours means one of our attempts stored it.
     */
    private static boolean holds(Optional<ResponseBytes<GetObjectResponse>> found, byte[] bytes) {
        return found.isPresent() && java.util.Arrays.equals(found.get().asByteArray(), bytes);
    }

    /**
     * A PUT with {@code If-Match: <etag>}: S3 stores it only while the object still has that ETag (412 otherwise,
     * 404 when it is gone). {@link #requireConditionalWrites} proved the endpoint honours the header.
     */
    @Override
    public Mono<Boolean> replaceIf(String key, String expectedVersion, byte[] bytes) {
        return storage.call(() -> conditionalPut("replaceIf", key, bytes,
                PutObjectRequest.builder().bucket(root.bucket()).key(objectKey(key)).ifMatch(expectedVersion).build(),
                true));
    }

    @Override
    public Mono<List<String>> list(String prefix) {
        return storage.call(() -> listing(prefix).stream().map(StoredObject::key).toList());
    }

    /** One paginated LIST: S3 reports each object's size and last-modified time with its key. */
    @Override
    public Mono<List<StoredObject>> listObjects(String prefix) {
        return storage.call(() -> listing(prefix));
    }

    private List<StoredObject> listing(String prefix) {
        String dir = prefix.isEmpty() || prefix.endsWith("/") ? prefix : prefix + "/";
        if (!dir.isEmpty()) {
            objectKey(dir.substring(0, dir.length() - 1));
        }
        String strip = root.prefix().isEmpty() ? "" : root.prefix() + "/";
        List<StoredObject> objects = new ArrayList<>();
        String token = null;
        do {
            ListObjectsV2Request.Builder request = ListObjectsV2Request.builder().bucket(root.bucket())
                    .prefix(strip + dir);
            if (token != null) {
                request.continuationToken(token);
            }
            ListObjectsV2Response page = call("list", prefix, () -> client.listObjectsV2(request.build()));
            for (S3Object object : page.contents()) {
                objects.add(new StoredObject(object.key().substring(strip.length()),
                        object.size() == null ? 0 : object.size(),
                        object.lastModified() == null ? java.time.Instant.MAX : object.lastModified()));
            }
            token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (token != null);
        objects.sort(java.util.Comparator.comparing(StoredObject::key));
        return List.copyOf(objects);
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

    /** One DELETE, without {@link #delete}'s HEAD: this runs after every published write. */
    @Override
    public Mono<Boolean> deleteLazily(String key) {
        return storage.call(() -> {
            call("delete", key, () -> client.deleteObject(b -> b.bucket(root.bucket()).key(objectKey(key))));
            return true;
        });
    }

    @Override
    public Mono<Boolean> exists(String key) {
        return storage.call(() -> headExists(key));
    }

    /**
     * Fails with a {@link StorageFault} unless the endpoint honours both conditional PUTs: a second
     * {@code If-None-Match: *} PUT of one key is refused, and {@code If-Match} PUTs land only on the ETag they
     * name — one at a time: of {@value #RACERS} concurrent PUTs naming one ETag at most one may land. Without the
     * first, two writers can both "create" one object and nothing the protocol builds on it (claims, Lance's own
     * manifest commits) is safe; without the second, two processes can both take the writer lease. The race can
     * only catch an endpoint that compares and then stores when the PUTs do overlap there; it is a guard, not a
     * proof. Checked once per endpoint and bucket in this process.
     */
    public Mono<Void> requireConditionalWrites() {
        String verifiedKey = root.settings().endpoint().map(Object::toString).orElse("aws") + "|" + root.bucket();
        if (VERIFIED.contains(verifiedKey)) {
            return Mono.empty();
        }
        String probe = "__probe/conditional-write-" + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36);
        byte[] mark = probe.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Mono<String> refusal = storage.call(() -> Optional.ofNullable(sequentialProbe(probe, mark)))
                .flatMap(found -> found.isPresent() ? Mono.just(found.get()) : racingProbe(probe));
        return refusal.map(Optional::of).defaultIfEmpty(Optional.empty())
                .flatMap(found -> storage.run(() -> call("delete", probe,
                        () -> client.deleteObject(b -> b.bucket(root.bucket()).key(objectKey(probe))))).thenReturn(found))
                .flatMap(found -> {
                    if (found.isPresent()) {
                        return Mono.error(new StorageFault("refusing to use " + root.uri() + ": the S3 endpoint "
                                + root.settings().endpoint().map(Object::toString).orElse("(AWS)")
                                + " does not honour conditional writes (" + found.get() + "), so concurrent writers "
                                + "could overwrite each other's commits or both hold the writer lease", null));
                    }
                    VERIFIED.add(verifiedKey);
                    return Mono.empty();
                });
    }

    /** Null when create-if-absent and a stale {@code If-Match} behave on {@code probe}, else what went wrong. */
    private String sequentialProbe(String probe, byte[] mark) {
        if (!createIfAbsent(probe, mark)) {
            return "a PUT with If-None-Match: * of a new key was refused";
        }
        if (createIfAbsent(probe, new byte[] {0})) {
            return "a PUT with If-None-Match: * replaced an existing object";
        }
        String etag = etag(probe);
        if (etag == null || etag.isEmpty()) {
            return "an object has no ETag to compare";
        }
        PutObjectRequest stale = PutObjectRequest.builder().bucket(root.bucket()).key(objectKey(probe))
                .ifMatch("\"0-not-" + unquoted(etag) + "\"").build();
        if (conditionalPut("replaceIf", probe, new byte[] {1}, stale, true)) {
            return "a PUT with If-Match of another ETag replaced the object";
        }
        return null;
    }

    /** Empty when exactly one of {@value #RACERS} concurrent {@code If-Match} PUTs of one ETag lands. */
    private Mono<String> racingProbe(String probe) {
        return storage.call(() -> etag(probe)).flatMap(etag -> Flux.range(0, RACERS)
                .flatMap(i -> storage.call(() -> conditionalPut("replaceIf", probe, new byte[] {2, i.byteValue()},
                        PutObjectRequest.builder().bucket(root.bucket()).key(objectKey(probe)).ifMatch(etag).build(),
                        true)), RACERS)
                .filter(Boolean::booleanValue).count()
                .flatMap(landed -> landed == 1 ? Mono.<String>empty() : Mono.just(landed == 0
                        ? "a PUT with If-Match of the object's own ETag was refused"
                        : landed + " of " + RACERS + " concurrent PUTs with If-Match of one ETag all landed")));
    }

    private String etag(String key) {
        return call("head", key, () -> client.headObject(b -> b.bucket(root.bucket()).key(objectKey(key)))).eTag();
    }

    private boolean createIfAbsent(String key, byte[] bytes) {
        return conditionalPut("putIfAbsent", key, bytes,
                PutObjectRequest.builder().bucket(root.bucket()).key(objectKey(key)).ifNoneMatch("*").build(), false);
    }

    /**
     * One conditional PUT: true when stored, false when its condition failed (412; for {@code If-Match} also 404,
     * the object being gone). 409 (another conditional write of the key in flight) is retried.
     */
    private boolean conditionalPut(String operation, String key, byte[] bytes, PutObjectRequest request,
                                   boolean goneFails) {
        for (int attempt = 0; ; attempt++) {
            try {
                client.putObject(request, RequestBody.fromBytes(bytes));
                return true;
            } catch (S3Exception e) {
                if (e.statusCode() == PRECONDITION_FAILED || goneFails && e.statusCode() == NOT_FOUND) {
                    // It can answer the SDK's retry of our own PUT whose first attempt landed but whose response
                    // was lost.
                    return holds(read(operation, key), bytes);
                }
                if (e.statusCode() != CONDITIONAL_CONFLICT || attempt >= CONFLICT_RETRIES) {
                    throw fault(operation, key, e);
                }
            } catch (SdkClientException e) {
                return settleAfterTransportFailure(operation, key, bytes, request, e);
            } catch (SdkException e) {
                throw fault(operation, key, e);
            }
        }
    }

    /**
     * The PUT failed in transport (e.g. a server that answers 412 before reading the body and closes the
     * connection, which the URL connection reports as an error writing the body): settle it by reading the key.
     * Our own bytes there → stored; the condition visibly failing now (the object exists for a create, or no longer
     * has the expected ETag for a replace) → not stored, as a 412 would have said; otherwise the outcome is unknown
     * and the fault stands.
     */
    private boolean settleAfterTransportFailure(String operation, String key, byte[] bytes, PutObjectRequest request,
                                                SdkClientException failure) {
        Optional<ResponseBytes<GetObjectResponse>> found = read(operation, key);
        if (holds(found, bytes)) {
            return true;
        }
        boolean conditionFails = request.ifMatch() != null
                ? found.map(object -> !unquoted(object.response().eTag()).equals(unquoted(request.ifMatch()))).orElse(true)
                : found.isPresent();
        if (conditionFails) {
            return false;
        }
        throw fault(operation, key, failure);
    }

    private static String unquoted(String etag) {
        return etag == null ? "" : etag.replace("\"", "");
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

    /** The full S3 key of a store key, after the shared key rule ({@link ObjectKeys}). */
    private String objectKey(String key) {
        ObjectKeys.require(key, false);
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

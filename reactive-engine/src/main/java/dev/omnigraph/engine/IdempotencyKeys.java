package dev.omnigraph.engine;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.query.BoundParams;
import dev.omnigraph.engine.write.IdempotentRequest;
import dev.omnigraph.engine.write.RequestHash;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.TreeSet;

/** What an idempotency key is matched against, per writer: the one place that says which request fields count. */
final class IdempotencyKeys {
    static final String FIELD = "idempotency key";

    private IdempotencyKeys() {
    }

    static String valid(String key) {
        return IdempotentRequest.validKey(key, FIELD);
    }

    /** A mutation: branch, query source and name, the bound (typed) params, and the expected commit. */
    static IdempotentRequest mutation(String key, String branch, String source, String queryName, BoundParams params,
                                      Optional<String> ifGraphCommit) {
        return new IdempotentRequest(key, RequestHash.of("mutation").field(branch).field(source).field(queryName)
                .params(params.asMap()).field(expected(ifGraphCommit)).finish());
    }

    /** A load: branch, mode, the types an overwrite empties, the expected commit, then the input bytes. */
    static Optional<LoadHash> load(String branch, LoadMode mode, LoadOptions options) {
        return options.idempotencyKey().map(IdempotencyKeys::valid).map(key -> new LoadHash(key,
                RequestHash.of("load").field(branch).field(mode.name())
                        .field(String.join(",", new TreeSet<>(options.overwriteTypes())))
                        .field(expected(options.ifGraphCommit()))));
    }

    private static String expected(Optional<String> ifGraphCommit) {
        return ifGraphCommit.map(commit -> "if:" + commit).orElse("unconditional");
    }

    /** A load's hash, fed with its bytes as they stream and finished once the input has been read whole. */
    static final class LoadHash {
        private final String key;
        private final RequestHash hash;
        private IdempotentRequest finished;

        LoadHash(String key, RequestHash hash) {
            this.key = key;
            this.hash = hash;
        }

        void update(ByteBuffer chunk) {
            hash.update(chunk);
        }

        synchronized IdempotentRequest request() {
            if (finished == null) {
                finished = new IdempotentRequest(key, hash.finish());
            }
            return finished;
        }
    }
}

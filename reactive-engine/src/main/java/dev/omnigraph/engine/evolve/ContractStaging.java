package dev.omnigraph.engine.evolve;

import dev.omnigraph.engine.schema.SchemaFiles;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.ObjectStore;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The staged schema contract of an apply ({@code _schema.pg.staging}, {@code _schema.ir.json.staging},
 * {@code __schema_state.json.staging}) and its promotion: each live file is replaced from its staging copy, in
 * the order source → IR → state (the state file is the trailing marker), and a staging copy is deleted only after
 * its live file is durable, so promotion can be repeated from any crash point.
 */
final class ContractStaging {
    static final String SUFFIX = ".staging";
    static final List<String> FILES = List.of(SchemaFiles.SOURCE, SchemaFiles.IR, SchemaFiles.STATE);

    private ContractStaging() {
    }

    static Mono<Void> write(ObjectStore files, SchemaFiles.Accepted target) {
        return SchemaFiles.write(files, target, SUFFIX);
    }

    static Mono<SchemaFiles.Accepted> read(ObjectStore files) {
        return SchemaFiles.read(files, SUFFIX);
    }

    static Mono<Void> promote(ObjectStore files, Failpoints failpoints) {
        return failpoints.hit(SchemaApplier.point(SchemaApplier.BEFORE_CONTRACT_SWAP))
                .thenMany(Flux.fromIterable(FILES).concatMap(name -> files.get(name + SUFFIX)
                        .flatMap(staged -> staged.isEmpty() ? Mono.<Void>empty()
                                : files.put(name, staged.get()).then(files.delete(name + SUFFIX)).then())))
                .then(failpoints.hit(SchemaApplier.point(SchemaApplier.AFTER_CONTRACT_SWAP)));
    }

    static Mono<Void> discard(ObjectStore files) {
        return Flux.fromIterable(FILES).concatMap(name -> files.delete(name + SUFFIX)).then();
    }

    static Mono<Boolean> present(ObjectStore files) {
        return Flux.fromIterable(FILES).concatMap(name -> files.exists(name + SUFFIX)).any(Boolean::booleanValue);
    }
}

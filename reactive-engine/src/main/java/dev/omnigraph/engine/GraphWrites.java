package dev.omnigraph.engine;

import dev.omnigraph.engine.evolve.SchemaApplyResult;
import dev.omnigraph.engine.evolve.SchemaPlan;
import dev.omnigraph.engine.index.EnsureResult;
import dev.omnigraph.engine.index.IndexEnsurer;
import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.engine.load.LoadRecord;
import dev.omnigraph.engine.load.Loader;
import dev.omnigraph.engine.load.NdjsonReader;
import dev.omnigraph.engine.mutation.MutationWriter;
import dev.omnigraph.engine.query.BoundParams;
import dev.omnigraph.engine.query.CompiledQuery;
import dev.omnigraph.engine.query.MutationPlan;
import dev.omnigraph.engine.query.QueryCompiler;
import dev.omnigraph.engine.schema.SchemaFiles;
import dev.omnigraph.engine.write.WriteOutcome;
import dev.omnigraph.storage.ValidText;
import dev.omnigraph.storage.error.BadRequest;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The data and schema writes of an {@link Omnigraph} handle: mutations, NDJSON loads, index ensure and schema
 * plan/apply. Each checks its input and that the handle may write before any I/O, then runs as one commit.
 */
final class GraphWrites {
    private final Omnigraph graph;
    private final HandleSchema schema;
    /** The NDJSON reader of the handle's catalog: reusable and thread-safe, so made once per catalog, not per load. */
    private volatile CatalogReader reader;

    private record CatalogReader(dev.omnigraph.engine.schema.Catalog catalog, NdjsonReader reader) {
    }

    GraphWrites(Omnigraph graph, HandleSchema schema) {
        this.graph = graph;
        this.schema = schema;
    }

    /** Branch names, actor ids and expected commit ids are refused as a BadRequest naming them when not valid text. */
    static void requireValidText(String branch, Optional<String> actorId, Optional<String> ifGraphCommit) {
        ValidText.require("branch", branch);
        actorId.ifPresent(actor -> ValidText.require("actor id", actor));
        ifGraphCommit.ifPresent(commit -> ValidText.require("expected graph commit id", commit));
    }

    Mono<WriteOutcome> mutate(String branch, String source, String queryName, Map<String, Object> params,
                              WriteOptions options) {
        return schema.refreshed().then(Mono.defer(() -> {
            requireValidText(branch, options.actorId(), options.ifGraphCommit());
            graph.requireWritable("mutation");
            graph.authorize(Authorizer.Action.CHANGE, options.actorId(), Optional.of(branch), Optional.empty());
            Optional<String> key = options.idempotencyKey().map(IdempotencyKeys::valid);
            CompiledQuery compiled = QueryCompiler.compile(source, queryName, graph.acceptedSchema().catalog());
            if (!(compiled instanceof MutationPlan plan)) {
                throw new BadRequest("query '" + queryName + "' is a read query; run it with query(), not mutate()");
            }
            BoundParams bound = compiled.bind(params);
            Instant now = Instant.now().truncatedTo(ChronoUnit.MILLIS);
            return compacting(branch, new MutationWriter(graph.writeContext()).execute(branch, plan, bound, now,
                    options.actorId(), options.ifGraphCommit(), key.map(k -> IdempotencyKeys.mutation(k, branch, source,
                            queryName, bound, options.ifGraphCommit()))));
        }));
    }

    Mono<WriteOutcome> load(String branch, LoadMode mode, Flux<ByteBuffer> ndjson, LoadOptions options) {
        return load(branch, mode, options, (reader, hash) -> reader.read(
                hash.map(h -> ndjson.doOnNext(h::update)).orElse(ndjson), Schedulers.parallel()));
    }

    Mono<WriteOutcome> load(String branch, LoadMode mode, Path ndjsonFile, LoadOptions options,
                            java.util.function.Consumer<LoadProgress> progress) {
        return load(branch, mode, options, (reader, hash) -> {
            long[] read = new long[2]; // bytes, lines: the reader shows chunks one at a time, in order
            return reader.read(ndjsonFile, graph.services().scheduler().scheduler(), chunk -> {
                read[0] += chunk.remaining();
                for (int i = chunk.position(); i < chunk.limit(); i++) {
                    if (chunk.get(i) == '\n') read[1]++;
                }
                hash.ifPresent(h -> h.update(chunk));
                progress.accept(new LoadProgress(read[0], read[1]));
            });
        });
    }

    /** A load of the records {@code read} yields (feeding the idempotency hash, when the load has a key). */
    private Mono<WriteOutcome> load(String branch, LoadMode mode, LoadOptions options,
                                    BiFunction<NdjsonReader, Optional<IdempotencyKeys.LoadHash>, Flux<LoadRecord>> read) {
        return schema.refreshed().then(Mono.defer(() -> {
            requireValidText(branch, options.actorId(), options.ifGraphCommit());
            graph.requireWritable("load");
            graph.authorize(Authorizer.Action.CHANGE, options.actorId(), Optional.of(branch), Optional.empty());
            Optional<IdempotencyKeys.LoadHash> hash = IdempotencyKeys.load(branch, mode, options);
            Flux<LoadRecord> records = read.apply(reader(), hash);
            return compacting(branch, new Loader(graph.writeContext()).load(branch, mode, records,
                    options.overwriteTypes(), options.actorId(), options.ifGraphCommit(), hash.map(h -> h::request)));
        }));
    }

    private NdjsonReader reader() {
        dev.omnigraph.engine.schema.Catalog catalog = graph.acceptedSchema().catalog();
        CatalogReader current = reader;
        if (current == null || current.catalog() != catalog) { // a schema change brings a new catalog
            current = new CatalogReader(catalog, new NdjsonReader(catalog));
            reader = current;
        }
        return current.reader();
    }

    /** The write, then the minor compactions it made due on a handle that turned them on ({@code MinorCompactions}). */
    private Mono<WriteOutcome> compacting(String branch, Mono<WriteOutcome> write) {
        return write.flatMap(outcome -> graph.compactions.after(graph.writeContext(), branch, outcome));
    }

    Mono<EnsureResult> ensureIndexes(String branch, Optional<String> actorId) {
        return Mono.defer(() -> {
            requireValidText(branch, actorId, Optional.empty());
            graph.requireWritable("index ensure");
            return new IndexEnsurer(graph.writeContext()).ensure(branch, actorId);
        });
    }

    Mono<SchemaPlan> planSchema(String source) {
        return schema.refreshed().then(Mono.defer(() ->
                SchemaEvolution.applier(graph.writeContext(), graph.files(), schema.current()).plan(source)));
    }

    /** Applies {@code source}; once applied, the handle's schema is the new one, labelled at the apply's commit. */
    Mono<SchemaApplyResult> applySchema(String source, boolean allowDataLoss, Optional<String> actorId) {
        return schema.refreshed().then(Mono.defer(() -> {
            graph.requireWritable("schema apply");
            graph.authorize(Authorizer.Action.SCHEMA_APPLY, actorId, Optional.empty(),
                    Optional.of(dev.omnigraph.storage.manifest.GraphBranches.MAIN));
            return SchemaEvolution.applier(graph.writeContext(), graph.files(), schema.current())
                    .apply(source, allowDataLoss, actorId)
                    .flatMap(result -> result.applied()
                            ? SchemaFiles.read(graph.files()).doOnNext(live -> {
                                schema.replace(live);
                                schema.label(result.commit().orElseThrow().manifestVersion());
                            }).thenReturn(result)
                            : Mono.just(result));
        }));
    }
}

package dev.omnigraph.engine.evolve;

import dev.omnigraph.engine.schema.SchemaFiles;
import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.SchemaIr;
import dev.omnigraph.storage.ObjectStore;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.manifest.GraphBranches;
import dev.omnigraph.storage.manifest.GraphCommit;
import dev.omnigraph.storage.manifest.ManifestStore;
import java.nio.charset.StandardCharsets;
import reactor.core.publisher.Mono;

/**
 * The schema each manifest version was written under, for time travel. Every apply keeps the contract it
 * replaces as {@code __schema_history/<commit id>.pg} and {@code .ir.json} (written with the staged contract,
 * before the publish). A read at manifest version {@code v} uses the schema replaced by the first apply published
 * after {@code v}, or the accepted schema when there is none.
 */
public final class SchemaHistory {
    static final String DIRECTORY = "__schema_history/";

    private SchemaHistory() {
    }

    static Mono<Void> keep(ObjectStore files, String commitId, SchemaFiles.Accepted replaced) {
        return files.put(DIRECTORY + commitId + ".pg", replaced.source().getBytes(StandardCharsets.UTF_8))
                .then(files.put(DIRECTORY + commitId + ".ir.json", replaced.ir().toJson().getBytes(StandardCharsets.UTF_8)));
    }

    static Mono<Void> discard(ObjectStore files, String commitId) {
        return files.delete(DIRECTORY + commitId + ".pg").then(files.delete(DIRECTORY + commitId + ".ir.json")).then();
    }

    /** The catalog main's manifest version {@code manifestVersion} was written under. */
    public static Mono<Catalog> catalogAt(ObjectStore files, ManifestStore manifest, long manifestVersion, Catalog current) {
        return manifest.commits(GraphBranches.MAIN)
                .filter(commit -> commit.operation().equals(SchemaIntent.OPERATION) && commit.manifestVersion() > manifestVersion)
                .reduce((newer, older) -> older) // newest first: the last one is the first apply after the read
                .map(GraphCommit::id)
                .flatMap(commitId -> Mono.zip(files.get(DIRECTORY + commitId + ".pg"), files.get(DIRECTORY + commitId + ".ir.json"))
                        .map(found -> {
                            if (found.getT1().isEmpty() || found.getT2().isEmpty()) {
                                throw new StorageFault("the schema replaced by apply " + commitId + " is missing from "
                                        + DIRECTORY + "; cannot read across that schema change", null);
                            }
                            String source = new String(found.getT1().get(), StandardCharsets.UTF_8);
                            SchemaIr ir = SchemaIr.fromJson(new String(found.getT2().get(), StandardCharsets.UTF_8));
                            return SchemaFiles.Accepted.compile(source, ir).catalog();
                        }))
                .defaultIfEmpty(current);
    }
}

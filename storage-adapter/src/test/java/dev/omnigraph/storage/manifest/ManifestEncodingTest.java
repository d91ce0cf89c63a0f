package dev.omnigraph.storage.manifest;

import static dev.omnigraph.storage.manifest.ManifestFixture.KNOWS;
import static dev.omnigraph.storage.manifest.ManifestFixture.PERSON;
import static dev.omnigraph.storage.manifest.ManifestFixture.move;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.StagedHandle;
import dev.omnigraph.storage.TableSnapshot;
import dev.omnigraph.storage.Ulid;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/** The {@code __manifest} column encodings: new manifests compress their lineage, older plain ones keep working. */
class ManifestEncodingTest extends ManifestStoreTestBase {
    /** Commit rows written as one fragment, as a compaction of the lineage leaves them. */
    private static final int LINEAGE_ROWS = 2_000;

    List<Path> dataBefore = List.of();

    @Test
    void aNewManifestStoresItsLineageCompressedAndReadsItBack() throws IOException {
        GraphCommit genesis = ManifestFixture.init(store);
        Schema schema = manifest().schema();
        assertThat(schema.findField(ManifestSchema.METADATA).getMetadata()).containsAllEntriesOf(ManifestSchema.ZSTD);
        assertThat(schema.findField(ManifestSchema.OBJECT_ID).getMetadata())
                .containsEntry("lance-schema:unenforced-primary-key", "true").containsAllEntriesOf(ManifestSchema.ZSTD);

        List<GraphCommit> written = appendLineage(genesis);
        long bytes = newDataBytes();
        // Plain, a commit row of this shape takes about 240 bytes in a fragment of this size; zstd about 60.
        assertThat(bytes / LINEAGE_ROWS).as("bytes per compacted commit row").isLessThan(120);
        assertThat(store.commit(written.get(LINEAGE_ROWS / 2).id()).block()).isEqualTo(written.get(LINEAGE_ROWS / 2));
        assertThat(store.commits("main").count().block()).isEqualTo(LINEAGE_ROWS + 1);
    }

    @Test
    void aManifestCreatedWithoutEncodingsKeepsItsSchemaThroughPublishesAndCompaction() {
        GraphCommit genesis = store.create(plain(ManifestSchema.SCHEMA), List.of(PERSON, KNOWS), Ulid.next(),
                ManifestFixture.micros()).block();
        ManifestBatchPublisher publisher = new ManifestBatchPublisher(store);
        GraphCommit head = genesis;
        int publishes = ManifestBatchPublisher.COMPACT_AT_FRAGMENTS + 4;
        for (int i = 0; i < publishes; i++) {
            head = publisher.publish(move("main", ExpectedHead.exactly(head.id()), PERSON, 2 + i, 3 + i)).block();
        }
        TableSnapshot after = manifest();
        assertThat(after.fragmentCount()).as("the publisher compacted on the way").isLessThan(publishes);
        after.schema().getFields().forEach(field -> assertThat(field.getMetadata()).doesNotContainKeys(
                ManifestSchema.ZSTD.keySet().toArray(String[]::new)));
        assertThat(after.schema().findField(ManifestSchema.OBJECT_ID).getMetadata())
                .containsEntry("lance-schema:unenforced-primary-key", "true");
        ManifestState state = store.load("main").block();
        assertThat(state.head()).contains(head.id());
        assertThat(state.table("node:Person").orElseThrow().version()).isEqualTo(2 + publishes);
        assertThat(store.commits("main").count().block()).isEqualTo(publishes + 1);
        assertThat(store.loadAt("main", genesis.manifestVersion()).block().table("node:Person").orElseThrow().version())
                .isEqualTo(2);
    }

    private List<GraphCommit> appendLineage(GraphCommit genesis) {
        List<GraphCommit> commits = new ArrayList<>();
        List<Map<String, Object>> rows = new ArrayList<>();
        String parent = genesis.id();
        long micros = genesis.createdAtMicros();
        for (int i = 0; i < LINEAGE_ROWS; i++) {
            GraphCommit commit = new GraphCommit(Ulid.next(), List.of(parent), Optional.empty(), Optional.of("tester"),
                    micros + 30_000L * (i + 1), "mutation", List.of(new TableDelta("node:Person", 2 + i, 3 + i)),
                    genesis.manifestVersion() + 1 + i);
            commits.add(commit);
            rows.add(ManifestRows.commit(commit));
            parent = commit.id();
        }
        dataBefore = dataFiles();
        StagedHandle staged = tables.stageAppend(manifest(), rows, Map.of()).block();
        tables.commitStaged(staged).block();
        return commits;
    }


    /** Bytes of the data files added since {@link #dataBefore} was taken. */
    private long newDataBytes() throws IOException {
        long sum = 0;
        for (Path file : dataFiles()) {
            if (!dataBefore.contains(file)) sum += Files.size(file);
        }
        return sum;
    }

    private List<Path> dataFiles() {
        try (Stream<Path> files = Files.list(root.resolve(ManifestSchema.DIRECTORY).resolve("data"))) {
            return files.toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private TableSnapshot manifest() {
        return tables.open(store.ref("main"), OptionalLong.empty()).block();
    }

    /** The schema as builds before session 7 created it: the same columns, only the primary-key metadata. */
    private static Schema plain(Schema schema) {
        return new Schema(schema.getFields().stream().map(field -> {
            Map<String, String> metadata = new HashMap<>(field.getMetadata());
            ManifestSchema.ZSTD.keySet().forEach(metadata::remove);
            return new Field(field.getName(), new FieldType(field.isNullable(), field.getType(), null, metadata),
                    field.getChildren());
        }).toList());
    }
}

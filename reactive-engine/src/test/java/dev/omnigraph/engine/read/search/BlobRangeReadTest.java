package dev.omnigraph.engine.read.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.storage.BlobRead;
import dev.omnigraph.storage.BlobWindow;
import dev.omnigraph.storage.CountingTableStorage;
import dev.omnigraph.storage.LanceTableStorage;
import dev.omnigraph.storage.StorageCallCounter;
import dev.omnigraph.storage.StorageCallCounter.Call;
import dev.omnigraph.storage.error.BlobRangeNotSatisfiable;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Blob reads by range through the engine, on tables with Lance's blob encoding (format 2.1, what this build
 * creates) and on plain columns (format 2.0, as the 0.39 builds wrote): the range alone is read where the column is
 * blob-encoded, and every other path that rewrites rows with blobs (updates of other properties, branch merge,
 * schema apply, export and reload) keeps the bytes.
 */
class BlobRangeReadTest {
    static final String SCHEMA = """
            node File {
                name: String @key
                data: Blob?
                size: I64?
            }
            """;
    static final byte[] BIG = new byte[10 * 1024 * 1024];
    static final byte[] SMALL = "small blob bytes".getBytes();

    static {
        new Random(28).nextBytes(BIG);
    }

    @TempDir
    Path dir;

    static String line(String name, byte[] bytes, long size) {
        return "{\"type\":\"File\",\"data\":{\"name\":\"" + name + "\",\"data\":\"base64:"
                + Base64.getEncoder().encodeToString(bytes) + "\",\"size\":" + size + "}}";
    }

    static String id(Omnigraph g, ReadTarget at, String name) {
        return (String) g.query(at, "query q($n: String) { match { $f: File { name: $n } } return { $f.id } }", "q",
                Map.of("n", name)).block().rows().blockFirst().get(0);
    }

    static BlobRead.Slice range(Omnigraph g, ReadTarget at, String name, long offset, long length) {
        return g.blob(at, "File", id(g, at, name), "data", BlobWindow.from(offset, OptionalLong.of(length))).block();
    }

    private Omnigraph graph(StorageServices services) {
        return SearchFixture.graph(services, dir.resolve("g"), SCHEMA, List.of(line("big", BIG, BIG.length),
                line("small", SMALL, SMALL.length)));
    }

    @ParameterizedTest(name = "format {0}")
    @ValueSource(strings = {"2.1", "2.0"})
    void rangesReadOnlyTheirBytesWhereTheColumnIsBlobEncoded(String format) {
        StorageCallCounter counter = new StorageCallCounter();
        try (LanceTableStorage lance = new LanceTableStorage(StorageFixture.scheduler(), format)) {
            StorageServices services = new StorageServices(StorageFixture.scheduler(), new CountingTableStorage(lance, counter));
            Omnigraph g = graph(services);
            ReadTarget main = ReadTarget.main();
            long before = counter.get(Call.BLOB_BYTES);
            BlobRead.Slice slice = range(g, main, "big", 7_000_000, 4096);
            assertThat(slice.bytes()).isEqualTo(Arrays.copyOfRange(BIG, 7_000_000, 7_004_096));
            assertThat(slice.size()).isEqualTo(BIG.length);
            long read = counter.get(Call.BLOB_BYTES) - before;
            // 2.1 tables get the blob encoding: the range alone. A 2.0 table (what earlier builds wrote) keeps its
            // plain column, read whole: the counter tells the two apart.
            assertThat(read).isEqualTo(format.equals("2.1") ? 4096 : BIG.length);

            BlobRangeNotSatisfiable past = catchThrowableOfType(() -> range(g, main, "small", SMALL.length, 1),
                    BlobRangeNotSatisfiable.class);
            assertThat(past.size()).isEqualTo(SMALL.length);
            assertThat(range(g, main, "small", 6, 100).bytes()).isEqualTo(Arrays.copyOfRange(SMALL, 6, SMALL.length));
            assertThat(g.blob(main, "File", id(g, main, "big"), "data").block()).isEqualTo(BIG);
            g.close();
        }
    }

    @Test
    void updatesMergesSchemaApplyAndExportKeepTheBytes() {
        StorageServices services = SearchFixture.services();
        try {
            Omnigraph g = graph(services);
            ReadTarget main = ReadTarget.main();
            String source = """
                    query resize($n: String, $s: I64) { update File set { size: $s } where name = $n }
                    query add($n: String, $b: String) { insert File { name: $n, data: $b } }
                    """;
            // An update of another property rewrites the whole row: the blob must come along.
            g.mutate("main", source, "resize", Map.of("n", "big", "s", 1L), WriteOptions.DEFAULT).block();
            assertThat(range(g, main, "big", BIG.length - 10, 10).bytes())
                    .isEqualTo(Arrays.copyOfRange(BIG, BIG.length - 10, BIG.length));

            // Branch merge of rows with blobs: a new one and an updated one.
            g.createBranch("side", Optional.empty()).block();
            g.mutate("side", source, "add", Map.of("n", "fresh", "b", "base64:AAECAw=="), WriteOptions.DEFAULT).block();
            g.mutate("side", source, "resize", Map.of("n", "small", "s", 99L), WriteOptions.DEFAULT).block();
            g.mergeBranch("side", "main", true, Optional.empty()).block(); // schema apply below needs main alone
            assertThat(g.blob(main, "File", id(g, main, "fresh"), "data").block()).containsExactly(0, 1, 2, 3);
            assertThat(g.blob(main, "File", id(g, main, "small"), "data").block()).isEqualTo(SMALL);

            // Schema apply rewrites the table: a rename, a dropped column and a new Blob property.
            g.applySchema("""
                    node File {
                        name: String @key
                        body: Blob? @rename_from("data")
                        thumb: Blob?
                    }
                    """, true, Optional.empty()).block();
            String big = id(g, main, "big");
            assertThat(g.blob(main, "File", big, "body", BlobWindow.from(3, OptionalLong.of(5))).block().bytes())
                    .isEqualTo(Arrays.copyOfRange(BIG, 3, 8));
            assertThat(catchThrowableOfType(() -> g.blob(main, "File", big, "thumb").block(), NotFound.class))
                    .hasMessageContaining("(NULL)");
            g.mutate("main", "query t($n: String, $b: String) { update File set { thumb: $b } where name = $n }", "t",
                    Map.of("n", "big", "b", "base64:/w=="), WriteOptions.DEFAULT).block();
            assertThat(g.blob(main, "File", big, "thumb").block()).containsExactly(0xff);
            assertThat(g.blob(main, "File", big, "body").block()).isEqualTo(BIG);

            // Export reads the stored bytes; a reload reads back the same.
            List<String> lines = g.export(main, null).collectList().block();
            Omnigraph copy = SearchFixture.graph(services, dir.resolve("copy"), g.schemaSource(), lines);
            assertThat(copy.blob(main, "File", id(copy, main, "big"), "body").block()).isEqualTo(BIG);
            assertThat(copy.export(main, null).collectList().block()).containsExactlyInAnyOrderElementsOf(lines);
            copy.close();
            g.close();
        } finally {
            services.tables().close();
        }
    }
}

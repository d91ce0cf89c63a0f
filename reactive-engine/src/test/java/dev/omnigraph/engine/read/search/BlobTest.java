package dev.omnigraph.engine.read.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.WriteOptions;
import dev.omnigraph.engine.schema.SchemaCompiler;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.OmnigraphException;
import dev.omnigraph.storage.error.ParseError;
import dev.omnigraph.storage.error.ValidationError;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Blob properties on real Lance: load, read bytes, mutate, export and re-load losslessly; every refusal. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BlobTest {
    static final String SCHEMA = """
            node File {
                name: String @key
                data: Blob?
                size: I64?
            }
            """;
    static final byte[] BIG = new byte[300_000];

    static {
        new Random(24).nextBytes(BIG);
    }

    @TempDir
    static Path dir;
    StorageServices services;
    Omnigraph graph;

    static String line(String name, String blobText) {
        return "{\"type\":\"File\",\"data\":{\"name\":\"" + name + "\"" + (blobText == null ? "" : ",\"data\":\"" + blobText + "\"") + "}}";
    }

    @BeforeAll
    void setUp() {
        services = SearchFixture.services();
        graph = SearchFixture.graph(services, dir.resolve("g"), SCHEMA, List.of(
                line("big", "base64:" + Base64.getEncoder().encodeToString(BIG)),
                line("empty", "base64:"),
                line("hello", "base64:aGVsbG8="),
                line("none", null)));
    }

    @AfterAll
    void tearDown() {
        services.tables().close();
    }

    String id(Omnigraph g, String name) {
        return (String) SearchFixture.first(g, "query q($n: String) { match { $f: File { name: $n } } return { $f.id } }",
                Map.of("n", name)).get(0);
    }

    byte[] bytes(Omnigraph g, String name) {
        return g.blob(ReadTarget.main(), "File", id(g, name), "data").block();
    }

    @Test
    void loadedBytesReadBack() {
        assertThat(bytes(graph, "big")).isEqualTo(BIG);
        assertThat(bytes(graph, "empty")).isEmpty();
        assertThat(new String(bytes(graph, "hello"))).isEqualTo("hello");
        NotFound none = catchThrowableOfType(() -> bytes(graph, "none"), NotFound.class);
        assertThat(none).hasMessageContaining("has no data (NULL)");
        NotFound missing = catchThrowableOfType(() -> graph.blob(ReadTarget.main(), "File", "nope", "data").block(), NotFound.class);
        assertThat(missing).hasMessageContaining("no File nope");
        assertThat(catchThrowableOfType(() -> graph.blob(ReadTarget.main(), "File", "x", "size").block(),
                OmnigraphException.class)).hasMessageContaining("File.size is I64, not a Blob");
    }

    @Test
    void wholeNodeProjectionLeavesBlobsOut() {
        List<List<Object>> rows = SearchFixture.query(graph, "query q() { match { $f: File { name: \"hello\" } } return { $f } }", Map.of());
        assertThat(List.copyOf(((Map<?, ?>) rows.get(0).get(0)).keySet())).isEqualTo(List.of("id", "name", "size"));
    }

    @Test
    void mutationsWriteBase64Strings(@TempDir Path own) {
        Omnigraph g = SearchFixture.graph(services, own.resolve("g"), SCHEMA, List.of());
        String source = """
                query add($n: String, $b: String) { insert File { name: $n, data: $b } }
                query lit() { insert File { name: "lit", data: "base64:AAEC" } }
                query set($n: String, $b: String) { update File set { data: $b } where name = $n }
                """;
        g.mutate("main", source, "add", Map.of("n", "m", "b", "base64:" + Base64.getEncoder().encodeToString(BIG)),
                WriteOptions.DEFAULT).block();
        g.mutate("main", source, "lit", Map.of(), WriteOptions.DEFAULT).block();
        assertThat(bytes(g, "m")).isEqualTo(BIG);
        assertThat(bytes(g, "lit")).containsExactly(0, 1, 2);
        g.mutate("main", source, "set", Map.of("n", "m", "b", "base64:/w=="), WriteOptions.DEFAULT).block();
        assertThat(bytes(g, "m")).containsExactly(0xff);
        OmnigraphException bad = catchThrowableOfType(() -> g.mutate("main", source, "add",
                Map.of("n", "x", "b", "https://example.com/a.png"), WriteOptions.DEFAULT).block(), OmnigraphException.class);
        assertThat(bad).hasMessageContaining("external blob URIs are not allowed");
        assertThat(SearchFixture.first(g, "query q() { match { $f: File } return { $f.name } }", Map.of())).hasSize(2);
    }

    @Test
    void exportAndReloadAreLossless(@TempDir Path own) {
        List<String> lines = graph.export(ReadTarget.main(), null).collectList().block();
        assertThat(lines).anyMatch(l -> l.contains("\"data\":\"base64:aGVsbG8=\""));
        Omnigraph copy = SearchFixture.graph(services, own.resolve("copy"), SCHEMA, lines);
        for (String name : List.of("big", "empty", "hello")) assertThat(bytes(copy, name)).isEqualTo(bytes(graph, name));
        assertThat(copy.export(ReadTarget.main(), null).collectList().block()).containsExactlyInAnyOrderElementsOf(lines);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "not base64|\"data\":\"base64:***\"|invalid base64 in Blob value",
            "external uri|\"data\":\"s3://bucket/key\"|external blob URIs are not allowed",
            "number|\"data\":5|expected a \"base64:…\" string, got JSON integer"})
    void badLoadValuesAreRefused(String name, String data, String message, @TempDir Path own) {
        Omnigraph g = SearchFixture.graph(services, own.resolve("g"), SCHEMA, List.of());
        ValidationError e = catchThrowableOfType(() -> SearchFixture.load(g,
                List.of("{\"type\":\"File\",\"data\":{\"name\":\"x\"," + data + "}}")), ValidationError.class);
        assertThat(e).hasMessageContaining("File.data").hasMessageContaining(message);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "projected|return { $f.data }|1:41|T24|cannot be used as a read value",
            "ordered|return { $f.name } order { $f.data }|1:59|T24|cannot be used as a read value",
            "aggregated|return { count($f.data) }|1:47|T24|cannot be used as a read value",
            "filtered|$f.data = \"base64:AA==\"|1:30|T11|cannot be used in a filter",
            "searched|search($f.data, \"x\")|1:37|T19|needs a String property, but f.data is Blob"})
    void readUsesAreRefused(String name, String part, String at, String code, String message) {
        String source = part.startsWith("return")
                ? "query q() { match { $f: File } " + part + " }"
                : "query q() { match { $f: File " + part + " } return { $f.name } }";
        ParseError e = catchThrowableOfType(() -> SearchFixture.query(graph, source, Map.of()), ParseError.class);
        assertThat(e).hasMessageStartingWith("query:" + at + ": [q] " + code + ": ").hasMessageContaining(message);
    }

    @Test
    void matchAndWhereAreRefused() {
        ParseError match = catchThrowableOfType(() -> SearchFixture.query(graph,
                "query q() { match { $f: File { data: \"base64:AA==\" } } return { $f.name } }", Map.of()), ParseError.class);
        assertThat(match).hasMessageStartingWith("query:1:32: [q] T3: ").hasMessageContaining("Blob property File.data cannot be matched");
        ParseError where = catchThrowableOfType(() -> graph.mutate("main",
                "query d() { delete File where data = \"base64:AA==\" }", "d", Map.of(), WriteOptions.DEFAULT).block(),
                ParseError.class);
        assertThat(where).hasMessageStartingWith("query:1:31: [d] T11: ").hasMessageContaining("cannot be used in where");
    }

    @Test
    void schemaRefusesKeysIndexesAndListsOfBlob() {
        assertThat(catchThrowableOfType(() -> SchemaCompiler.compile("node A { b: Blob @key }"), ParseError.class))
                .hasMessageContaining("Blob");
        assertThat(catchThrowableOfType(() -> SchemaCompiler.compile("node A { k: String @key\n b: Blob @index }"), ParseError.class))
                .hasMessageContaining("@index is not allowed on Blob property 'b'");
        assertThat(catchThrowableOfType(() -> SchemaCompiler.compile("node A { k: String @key\n b: [Blob] }"), ParseError.class))
                .hasMessageContaining("lists of Blob are not supported");
    }
}

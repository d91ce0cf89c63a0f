package dev.omnigraph.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.storage.CountingTableStorage;
import dev.omnigraph.storage.StorageCallCounter;
import dev.omnigraph.storage.testing.StorageFixture;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.testing.HttpFixture.Reply;
import dev.omnigraph.http.wire.Json;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

/**
 * {@code GET /blob} over real loopback HTTP: whole bytes, Range reads (206) that read only the range from storage,
 * unsatisfiable ranges (416), errors.
 */
class BlobRoutesTest {
    static final String SCHEMA = "node File {\n  name: String @key\n  data: Blob?\n}\n";
    static final byte[] BYTES = new byte[3 * BlobRoute.CHUNK + 123]; // several chunks

    static {
        new Random(6).nextBytes(BYTES);
    }

    @TempDir
    Path dir;
    HttpFixture http;
    String id;

    final StorageCallCounter counter = new StorageCallCounter();

    @BeforeEach
    void setUp() {
        http = new HttpFixture(new StorageServices(StorageFixture.scheduler(),
                new CountingTableStorage(StorageFixture.newTableStorage(), counter)));
        Omnigraph.init(http.services, dir.resolve("files"), SCHEMA).block(Duration.ofSeconds(60));
        http.start(dir);
        String data = "{\"type\":\"File\",\"data\":{\"name\":\"f\",\"data\":\"base64:" + Base64.getEncoder().encodeToString(BYTES)
                + "\"}}\n{\"type\":\"File\",\"data\":{\"name\":\"none\"}}\n";
        Reply load = http.postJson("/graphs/files/load", Json.object().put("data", data).put("mode", "append"));
        assertThat(load.status()).as(load.toString()).isEqualTo(200);
        Reply ids = http.postJson("/graphs/files/query", Json.object()
                .put("query", "query q() { match { $f: File { name: \"f\" } } return { $f.id } }"));
        id = ids.json().path("rows").get(0).path("f.id").asText();
    }

    @AfterEach
    void tearDown() {
        http.close();
    }

    record Bytes(int status, io.netty.handler.codec.http.HttpHeaders headers, byte[] body) {}

    Bytes get(String path, Map<String, String> headers) {
        return http.client().headers(h -> headers.forEach(h::set)).get().uri(path)
                .responseSingle((r, body) -> body.asByteArray().defaultIfEmpty(new byte[0])
                        .map(b -> new Bytes(r.status().code(), r.responseHeaders(), b)))
                .block(Duration.ofSeconds(60));
    }

    String path(String id) {
        return "/graphs/files/blob?type=File&id=" + id + "&property=data";
    }

    @Test
    void aRangeRequestReadsOnlyItsBytes() {
        long before = counter.get(StorageCallCounter.Call.BLOB_BYTES);
        Bytes middle = get(path(id), Map.of("Range", "bytes=2000000-2004095"));
        assertThat(middle.status()).isEqualTo(206);
        assertThat(middle.headers().get("Content-Range")).isEqualTo("bytes 2000000-2004095/" + BYTES.length);
        assertThat(middle.body()).isEqualTo(Arrays.copyOfRange(BYTES, 2_000_000, 2_004_096));
        assertThat(counter.get(StorageCallCounter.Call.BLOB_BYTES) - before).isEqualTo(4096);

        Bytes beyond = get(path(id), Map.of("Range", "bytes=" + (BYTES.length + 5) + "-" + (BYTES.length + 9)));
        assertThat(beyond.status()).isEqualTo(416);
        assertThat(beyond.headers().get("Content-Range")).isEqualTo("bytes */" + BYTES.length);
        assertThat(counter.get(StorageCallCounter.Call.BLOB_BYTES) - before).as("nothing read for a 416").isEqualTo(4096);
    }

    @Test
    void wholeBlobAndRanges() {
        Bytes all = get(path(id), Map.of());
        assertThat(all.status()).isEqualTo(200);
        assertThat(all.headers().get("Content-Type")).isEqualTo("application/octet-stream");
        assertThat(all.headers().get("Accept-Ranges")).isEqualTo("bytes");
        assertThat(all.body()).isEqualTo(BYTES);

        int from = BlobRoute.CHUNK - 5;
        Bytes middle = get(path(id), Map.of("Range", "bytes=" + from + "-" + (from + BlobRoute.CHUNK + 9)));
        assertThat(middle.status()).isEqualTo(206);
        assertThat(middle.headers().get("Content-Range"))
                .isEqualTo("bytes " + from + "-" + (from + BlobRoute.CHUNK + 9) + "/" + BYTES.length);
        assertThat(middle.body()).isEqualTo(Arrays.copyOfRange(BYTES, from, from + BlobRoute.CHUNK + 10));

        Bytes suffix = get(path(id), Map.of("Range", "bytes=-100"));
        assertThat(suffix.status()).isEqualTo(206);
        assertThat(suffix.body()).isEqualTo(Arrays.copyOfRange(BYTES, BYTES.length - 100, BYTES.length));

        Bytes open = get(path(id), Map.of("Range", "bytes=" + (BYTES.length - 3) + "-"));
        assertThat(open.body()).isEqualTo(Arrays.copyOfRange(BYTES, BYTES.length - 3, BYTES.length));

        Bytes beyond = get(path(id), Map.of("Range", "bytes=" + BYTES.length + "-"));
        assertThat(beyond.status()).isEqualTo(416);
        assertThat(beyond.headers().get("Content-Range")).isEqualTo("bytes */" + BYTES.length);
        // The reference's 416 body: the blob_range detail says what was asked against how long the blob is.
        com.fasterxml.jackson.databind.JsonNode range = dev.omnigraph.http.wire.Json.parse(beyond.body(), "response")
                .path("blob_range");
        assertThat(range.path("start").asLong()).isEqualTo(BYTES.length);
        assertThat(range.path("end").asLong()).isEqualTo(BYTES.length - 1);
        assertThat(range.path("length").asLong()).isEqualTo(BYTES.length);
    }

    @Test
    void refusals() {
        assertThat(http.get("/graphs/files/blob?type=File&id=" + id).status()).isEqualTo(400); // no property
        assertThat(http.get("/graphs/files/blob?type=File&id=nope&property=data").status()).isEqualTo(404);
        assertThat(http.get("/graphs/files/blob?type=File&id=" + id + "&property=name").status()).isEqualTo(400);
        Reply bad = http.send(io.netty.handler.codec.http.HttpMethod.GET, path(id), Map.of("Range", "items=1-2"), Mono.empty());
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.json().path("error").asText()).contains("Range");
    }
}

package dev.omnigraph.engine.load;

import static dev.omnigraph.engine.load.LoadFixture.bytes;
import static dev.omnigraph.engine.load.LoadFixture.readAll;
import static dev.omnigraph.engine.load.LoadFixture.reader;
import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.engine.load.LoadRecord.EdgeRecord;
import dev.omnigraph.engine.load.LoadRecord.NodeRecord;
import dev.omnigraph.storage.Ulid;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

class NdjsonReaderTest {
    private static final String ULID = "[0-9A-HJKMNP-TV-Z]{26}";

    @Test
    void nodeWithEveryValueType() {
        String line = """
                {"type":"Person","data":{"name":"Ann","age":-2147483648,"big":18446744073709551615,"small":4294967295,\
                "count":-9223372036854775808,"score":1.5,"weight":2.25,"born":"2024-03-01","seen":"2024-03-01T12:00:00.1239+02:00",\
                "ok":true,"tags":["a","é"],"nums":[1,-2,9223372036854775807],"days":[0,"1970-01-03"],"v":[1,2.5,-3e2],"mood":"happy"}}
                """;
        NodeRecord r = (NodeRecord) readAll(line).get(0);
        assertThat(r.line()).isEqualTo(1);
        assertThat(r.typeName()).isEqualTo("Person");
        assertThat(r.id()).isEqualTo("Ann");
        Map<String, Object> v = r.values();
        assertThat(v.keySet()).containsExactly("name", "age", "big", "small", "count", "score", "weight", "born",
                "seen", "ok", "tags", "nums", "days", "v", "mood");
        assertThat(v.get("name")).isEqualTo("Ann");
        assertThat(v.get("age")).isEqualTo(Integer.MIN_VALUE);
        assertThat(v.get("big")).isEqualTo(-1L); // U64 max as unsigned bits
        assertThat(v.get("small")).isEqualTo(4294967295L);
        assertThat(v.get("count")).isEqualTo(Long.MIN_VALUE);
        assertThat(v.get("score")).isEqualTo(1.5f);
        assertThat(v.get("weight")).isEqualTo(2.25d);
        assertThat(v.get("born")).isEqualTo(LocalDate.of(2024, 3, 1));
        assertThat(v.get("seen")).isEqualTo(Instant.parse("2024-03-01T10:00:00.123Z"));
        assertThat(v.get("ok")).isEqualTo(Boolean.TRUE);
        assertThat(v.get("tags")).isEqualTo(List.of("a", "é"));
        assertThat(v.get("nums")).isEqualTo(List.of(1L, -2L, Long.MAX_VALUE));
        assertThat(v.get("days")).isEqualTo(List.of(LocalDate.EPOCH, LocalDate.of(1970, 1, 3)));
        assertThat(v.get("v")).isEqualTo(List.of(1f, 2.5f, -300f));
        assertThat(v.get("mood")).isEqualTo("happy");
    }

    @Test
    void integerEncodingsOfDatesAndAbsentNullables() {
        List<LoadRecord> rs = readAll("""
                {"type":"Person","data":{"name":"Bo","born":19783,"seen":-1,"score":3,"weight":7,"age":null}}
                {"type":"Person","data":{"name":"Cy","seen":"2024-03-01T00:00:00"}}
                """);
        Map<String, Object> v = rs.get(0).values();
        assertThat(v.get("born")).isEqualTo(LocalDate.ofEpochDay(19783));
        assertThat(v.get("seen")).isEqualTo(Instant.ofEpochMilli(-1));
        assertThat(v.get("score")).isEqualTo(3f);
        assertThat(v.get("weight")).isEqualTo(7d);
        assertThat(v.get("age")).isNull();
        assertThat(v).containsEntry("tags", null).containsEntry("v", null).hasSize(15);
        assertThat(rs.get(1).values().get("seen")).isEqualTo(Instant.parse("2024-03-01T00:00:00Z"));
    }

    @Test
    void keyedIdsAreDerivedAndAMatchingSuppliedIdIsAccepted() {
        List<LoadRecord> rs = readAll("""
                {"type":"Person","data":{"id":"Dee","name":"Dee"}}
                {"type":"Pair","data":{"a":"x","b":7}}
                {"data":{"b":-1,"a":"q\\"r"},"type":"Pair"}
                """);
        assertThat(rs).extracting(LoadRecord::id).containsExactly("Dee", "[\"x\",\"7\"]", "[\"q\\\"r\",\"-1\"]");
        assertThat(rs.get(1).values()).containsExactly(Map.entry("a", "x"), Map.entry("b", 7L));
    }

    @Test
    void unkeyedNodesAndEdgesGetSuppliedIdsOrFreshUlids() {
        List<LoadRecord> rs = readAll("""
                {"type":"Note","data":{"body":"one"}}
                {"type":"Note","data":{"body":"two","id":"note-2"}}
                {"type":"Note","data":{"body":"three"}}
                {"edge":"Knows","from":"Ann","to":"Bo"}
                {"edge":"Knows","from":"Ann","to":"Bo","data":{"id":"k1"}}
                """);
        assertThat(rs.get(0).id()).matches(ULID);
        assertThat(rs.get(1).id()).isEqualTo("note-2");
        assertThat(rs.get(2).id()).matches(ULID).isNotEqualTo(rs.get(0).id());
        assertThat(rs.get(3).id()).matches(ULID);
        assertThat(rs.get(4).id()).isEqualTo("k1");
        assertThat(rs.get(0).values()).containsEntry("body", "one").containsEntry("rank", null);
    }

    @Test
    void edgesWithValuesAndCaseInsensitiveNames() {
        List<LoadRecord> rs = readAll("""
                {"edge":"knows","from":"Ann","to":"Bo","data":{"since":"2020-01-01","strength":0.5}}
                {"to":"n1","from":"Ann","edge":"WROTE"}
                {"edge":"WrOTE","from":"","to":"n2","data":{}}
                """);
        EdgeRecord k = (EdgeRecord) rs.get(0);
        assertThat(k.edgeTypeName()).isEqualTo("Knows");
        assertThat(k.typeName()).isEqualTo("Knows");
        assertThat(k.src()).isEqualTo("Ann");
        assertThat(k.dst()).isEqualTo("Bo");
        assertThat(k.values()).containsExactly(Map.entry("since", LocalDate.of(2020, 1, 1)), Map.entry("strength", 0.5f));
        EdgeRecord w = (EdgeRecord) rs.get(1);
        assertThat(w.edgeTypeName()).isEqualTo("WrOTE");
        assertThat(w.src()).isEqualTo("Ann");
        assertThat(w.dst()).isEqualTo("n1");
        assertThat(w.values()).isEmpty();
        assertThat(((EdgeRecord) rs.get(2)).src()).isEmpty();
    }

    @Test
    void crlfEmptyLinesAndAFinalLineWithoutNewline() {
        String text = "{\"type\":\"Note\",\"data\":{\"body\":\"a\"}}\r\n\r\n\n"
                + "  {\"type\":\"Note\",\"data\":{\"body\":\"b\\r\"}} \t\r\n"
                + "{\"type\":\"Note\",\"data\":{\"body\":\"c\"}}";
        List<LoadRecord> rs = readAll(text);
        assertThat(rs).extracting(LoadRecord::line).containsExactly(1, 4, 5);
        assertThat(rs).extracting(r -> r.values().get("body")).containsExactly("a", "b\r", "c");
        assertThat(readAll("")).isEmpty();
        assertThat(readAll("\n\r\n")).isEmpty();
        assertThat(readAll("{\"type\":\"Note\",\"data\":{\"body\":\"z\"}}\r")).hasSize(1);
    }

    @Test
    void everyTwoAndThreeWaySplitGivesTheSameRecords() {
        byte[] input = ("{\"type\":\"Person\",\"data\":{\"name\":\"Zoë 東京 🙂\",\"tags\":[\"ü\",\"😀x\"]}}\r\n"
                + "\n{\"edge\":\"Knows\",\"from\":\"Zoë\",\"to\":\"東\",\"data\":{\"id\":\"e1\"}}\n"
                + "{\"type\":\"Pair\",\"data\":{\"a\":\"ß\",\"b\":1}}").getBytes(StandardCharsets.UTF_8);
        List<LoadRecord> expected = reader().read(Flux.just(ByteBuffer.wrap(input))).collectList().block();
        assertThat(expected).hasSize(3);
        assertThat(expected.get(0).id()).isEqualTo("Zoë 東京 🙂");
        assertThat(expected).extracting(LoadRecord::line).containsExactly(1, 3, 4);
        NdjsonReader reader = reader();
        for (int i = 0; i <= input.length; i++) {
            for (int j = i; j <= input.length; j += 7) {
                Flux<ByteBuffer> chunks = Flux.just(
                        ByteBuffer.wrap(Arrays.copyOfRange(input, 0, i)),
                        ByteBuffer.wrap(Arrays.copyOfRange(input, i, j)),
                        ByteBuffer.wrap(Arrays.copyOfRange(input, j, input.length)));
                assertThat(reader.read(chunks).collectList().block()).as("split at %d/%d", i, j).isEqualTo(expected);
            }
        }
        List<ByteBuffer> single = new ArrayList<>();
        for (byte b : input) {
            ByteBuffer d = ByteBuffer.allocateDirect(1).put(b);
            single.add(d.flip());
        }
        assertThat(reader.read(Flux.fromIterable(single)).collectList().block()).isEqualTo(expected);
    }

    @Test
    void chunksAreReadFromPositionToLimitAndLeftUntouched() {
        byte[] raw = "xx{\"type\":\"Note\",\"data\":{\"body\":\"a\"}}\nyy".getBytes(StandardCharsets.UTF_8);
        ByteBuffer chunk = ByteBuffer.wrap(raw, 2, raw.length - 4).slice();
        StepVerifier.create(reader().read(Flux.just(chunk)))
                .assertNext(r -> assertThat(r.values().get("body")).isEqualTo("a"))
                .verifyComplete();
        assertThat(chunk.position()).isZero();
    }

    @Test
    void requestingOneRecordPullsOnlyAFewChunks() {
        AtomicInteger pulled = new AtomicInteger();
        Flux<ByteBuffer> source = Flux.range(1, 10_000)
                .map(i -> ByteBuffer.wrap(("{\"type\":\"Note\",\"data\":{\"body\":\"n" + i + "\"}}\n")
                        .getBytes(StandardCharsets.UTF_8)))
                .doOnNext(b -> pulled.incrementAndGet());
        StepVerifier.create(reader().read(source), 0)
                .expectSubscription()
                // flatMapIterable's prefetch of one chunk is the only read-ahead before any demand.
                .then(() -> assertThat(pulled.get()).isLessThanOrEqualTo(1))
                .thenRequest(1)
                .assertNext(r -> assertThat(r.values().get("body")).isEqualTo("n1"))
                .then(() -> assertThat(pulled.get()).isBetween(1, 3))
                .thenRequest(2)
                .expectNextCount(2)
                .then(() -> assertThat(pulled.get()).isBetween(3, 5))
                .thenCancel()
                .verify();
    }

    @Test
    void oneLineSplitOverManyChunksPullsOnlyWhatItNeeds() {
        AtomicInteger pulled = new AtomicInteger();
        byte[] line = "{\"type\":\"Note\",\"data\":{\"body\":\"long\"}}\n".getBytes(StandardCharsets.UTF_8);
        Flux<ByteBuffer> source = Flux.<ByteBuffer, Integer>generate(() -> 0, (i, sink) -> {
            sink.next(ByteBuffer.wrap(line, i % line.length, 1));
            return i + 1;
        }).doOnNext(b -> pulled.incrementAndGet());
        StepVerifier.create(reader().read(source), 1)
                .expectNextCount(1)
                // Read-ahead is bounded by the next line: its chunks are pulled once line 1 is out.
                .then(() -> assertThat(pulled.get()).isBetween(line.length, 2 * line.length + 2))
                .thenCancel()
                .verify();
    }

    @Test
    void readsAFileOnTheGivenScheduler(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("in.ndjson");
        StringBuilder text = new StringBuilder();
        int n = 5_000; // well over one 64 KiB read
        for (int i = 1; i <= n; i++)
            text.append("{\"type\":\"Person\",\"data\":{\"name\":\"p").append(i).append("\",\"tags\":[\"ö\"]}}")
                    .append(i % 2 == 0 ? "\r\n" : "\n");
        Files.writeString(file, text.toString().stripTrailing(), StandardCharsets.UTF_8);
        Set<String> threads = ConcurrentHashMap.newKeySet();
        // Subscribed from a non-blocking thread: BlockHound fails the test if the file is read there.
        List<LoadRecord> rs = Mono.defer(() -> reader().read(file, Schedulers.boundedElastic())
                        .doOnNext(r -> threads.add(Thread.currentThread().getName()))
                        .publishOn(Schedulers.parallel())
                        .collectList())
                .subscribeOn(Schedulers.parallel())
                .block();
        assertThat(rs).hasSize(n);
        for (int i = 0; i < n; i++) {
            assertThat(rs.get(i).line()).isEqualTo(i + 1);
            assertThat(rs.get(i).id()).isEqualTo("p" + (i + 1));
        }
        assertThat(threads).allMatch(t -> t.startsWith("boundedElastic"));
    }

    @Test
    void inputFromNonBlockingThreadsIsParsedOnTheGivenScheduler() {
        int n = 2_000; // unkeyed: every record mints a ULID, which may read the entropy source
        Flux<ByteBuffer> chunks = Flux.range(1, n)
                .map(i -> ByteBuffer.wrap(("{\"type\":\"Note\",\"data\":{\"body\":\"" + i + "\"}}\n")
                        .getBytes(StandardCharsets.UTF_8)))
                .subscribeOn(Schedulers.parallel());
        Set<String> threads = ConcurrentHashMap.newKeySet();
        List<LoadRecord> rs = reader().read(chunks, Schedulers.boundedElastic())
                .doOnNext(r -> threads.add(Thread.currentThread().getName()))
                .publishOn(Schedulers.parallel(), 1) // downstream requests come from a non-blocking thread too
                .collectList()
                .block();
        assertThat(rs).hasSize(n).allMatch(r -> r.id().matches(ULID));
        assertThat(rs).extracting(r -> r.values().get("body")).first().isEqualTo("1");
        assertThat(threads).isNotEmpty().allMatch(t -> t.startsWith("boundedElastic"));
    }

    @Test
    void aMissingFileFailsTheFlux(@TempDir Path dir) {
        StepVerifier.create(reader().read(dir.resolve("absent.ndjson"), Schedulers.boundedElastic()))
                .expectError(java.nio.file.NoSuchFileException.class)
                .verify();
    }

    @Test
    void aReaderIsReusableAcrossSubscriptions() {
        NdjsonReader reader = reader();
        Flux<LoadRecord> flux = reader.read(bytes("{\"type\":\"Note\",\"data\":{\"body\":\"a\"}}\n{\"type\":\"Note\""));
        // The second line is cut short: each subscription must see line 1, then the same error at line 2.
        for (int i = 0; i < 2; i++)
            StepVerifier.create(flux).expectNextCount(1)
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(dev.omnigraph.storage.error.ParseError.class)
                            .extracting("line").isEqualTo(2))
                    .verify();
    }

    @Test
    void chunksParsedSideBySideKeepInputOrderAndReportTheFirstBadLine() {
        // Many chunks, parsed up to PARSE_AHEAD at once: records stay in line order, and of two bad lines the
        // earlier one is reported, after exactly the records before it, even when a later chunk finishes first.
        int lines = 5_000;
        StringBuilder text = new StringBuilder();
        for (int i = 1; i <= lines; i++) {
            text.append(i == 4_000 ? "{\"type\":\"Person\",\"data\":{\"name\":1}}"
                    : i == 1_200 ? "{\"type\":\"Nobody\"}"
                    : "{\"type\":\"Note\",\"data\":{\"body\":\"n" + i + "\"}}").append('\n');
        }
        byte[] all = text.toString().getBytes(StandardCharsets.UTF_8);
        List<ByteBuffer> chunks = new ArrayList<>();
        for (int at = 0; at < all.length; at += 997) {
            chunks.add(ByteBuffer.wrap(all, at, Math.min(997, all.length - at)).slice());
        }
        List<String> seen = new ArrayList<>();
        StepVerifier.create(reader().read(Flux.fromIterable(chunks), Schedulers.parallel())
                        .doOnNext(r -> seen.add((String) r.values().get("body"))))
                .thenConsumeWhile(r -> true)
                .expectErrorSatisfies(e -> assertThat(e.getMessage()).contains("line 1200"))
                .verify();
        assertThat(seen).hasSize(1_199);
        for (int i = 0; i < seen.size(); i++) {
            assertThat(seen.get(i)).isEqualTo("n" + (i + 1));
        }
        List<LoadRecord> good = reader().read(Flux.fromIterable(chunks).skip(0).take(200), Schedulers.parallel())
                .take(1_000).collectList().block();
        assertThat(good).extracting(LoadRecord::line).isSorted().doesNotHaveDuplicates();
        assertThat(good).extracting(LoadRecord::id).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void freshIdsFollowLineOrderWhicheverChunkIsParsedFirst() {
        // Ids are minted as chunks are emitted, in input order; parsing the later chunk first must not matter.
        LineParser parser = new LineParser(LoadFixture.CATALOG, 1 << 20);
        ParsedLines later = ParsedLines.of(parser, List.of(noteLine(3), noteLine(4)));
        ParsedLines earlier = ParsedLines.of(parser, List.of(noteLine(1), noteLine(2)));
        List<String> ids = Flux.concat(earlier.emit(), later.emit()).map(LoadRecord::id).collectList().block();
        assertThat(ids).isSorted().doesNotHaveDuplicates().hasSize(4).allMatch(Ulid::isValid);
    }

    @Test
    void onlyPlainAsciiLinesSkipTheTextChecks() {
        assertThat(LineParser.plainAscii("{\"type\":\"Note\",\"data\":{\"body\":\"x\"}}".getBytes(StandardCharsets.UTF_8))).isTrue();
        assertThat(LineParser.plainAscii("{\"body\":\"a\\u0000\"}".getBytes(StandardCharsets.UTF_8))).isFalse();
        assertThat(LineParser.plainAscii("{\"body\":\"é\"}".getBytes(StandardCharsets.UTF_8))).isFalse();
        assertThat(LineParser.plainAscii(new byte[] {'{', 0, '}'})).isFalse();
        // A surrogate spelled in raw bytes (ED A0 80) makes the line not plain, so it is still checked and refused.
        byte[] line = LoadFixture.noteWithRawSurrogate();
        LineParser parser = new LineParser(LoadFixture.CATALOG, 1 << 20);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> parser.parse(1, line))
                .isInstanceOf(dev.omnigraph.storage.error.ParseError.class);
    }

    private static LineSplitter.Line noteLine(int number) {
        return new LineSplitter.Line(number,
                ("{\"type\":\"Note\",\"data\":{\"body\":\"n" + number + "\"}}").getBytes(StandardCharsets.UTF_8), null);
    }
}

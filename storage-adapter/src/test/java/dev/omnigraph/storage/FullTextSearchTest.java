package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.lance.Dataset;
import org.lance.index.IndexOptions;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;

/**
 * Full-text queries through the inverted index on real Lance tables: BM25 top-k with Lance's scores, AND and fuzzy
 * matching, rows appended, deleted and updated after the build, and indexes that cannot be used (none, or one built
 * with the earlier tokenizer that kept stop words).
 */
class FullTextSearchTest extends LanceStorageTestBase {
    static final Schema DOC = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Utf8()), null),
            Field.nullable("title", new ArrowType.Utf8())));
    static final IndexSpec TITLE = new IndexSpec("og_inverted_title", "title", IndexSpec.Kind.INVERTED, 0);
    static final List<String> ID_TITLE = List.of("id", "title");

    TableRef ref;

    long load(Map<String, String> docs) {
        TableSnapshot base = ref == null ? storage.create(dir.resolve("docs").toString(), DOC).block()
                : storage.open(ref, OptionalLong.empty()).block();
        ref = base.ref();
        List<Map<String, Object>> rows = new ArrayList<>();
        docs.forEach((id, title) -> rows.add(Map.of("id", id, "title", title)));
        return storage.commitStaged(storage.stageUpsert(base, rows, "id", Map.of()).block()).block().version();
    }

    Optional<List<String>> ids(long version, FullTextRequest request) {
        return storage.fullText(storage.open(ref, OptionalLong.of(version)).block(), TITLE.name(), request).block()
                .map(rows -> rows.stream().map(r -> (String) r.get("id")).toList());
    }

    static FullTextRequest any(String terms, int limit) {
        return new FullTextRequest("title", terms, FullTextRequest.Match.ANY, 0, limit, ID_TITLE);
    }

    static FullTextRequest all(String terms) {
        return new FullTextRequest("title", terms, FullTextRequest.Match.ALL, 0, 0, ID_TITLE);
    }

    /** Builds the title's inverted index on version {@code v} (staged, committed at v + 1). */
    long index(long v) {
        return storage.commitStaged(storage.stageIndexes(storage.open(ref, OptionalLong.of(v)).block(), List.of(TITLE), Map.of())
                .block().orElseThrow()).block().version();
    }

    @Test
    void answersThroughTheIndexIncludingRowsWrittenAfterTheBuild() {
        long v = load(Map.of("ml-intro", "Introduction to Machine Learning", "dl-basics", "Deep Learning Basics",
                "nlp-guide", "Natural Language Processing Guide", "cv-overview", "Computer Vision Overview",
                "rl-intro", "Reinforcement Learning Introduction"));
        assertThat(ids(v, any("learning", 3))).as("no index yet").isEmpty();
        long indexed = index(v);

        List<Map<String, Object>> top = storage.fullText(storage.open(ref, OptionalLong.of(indexed)).block(),
                TITLE.name(), any("learning", 3)).block().orElseThrow();
        assertThat(top).extracting(r -> r.get("id")).containsExactlyInAnyOrder("ml-intro", "dl-basics", "rl-intro");
        // "to" is a stop word: the three titles have three tokens each and score the same.
        assertThat(top).extracting(r -> r.get("_score")).containsOnly(top.get(0).get("_score"));
        assertThat(ids(indexed, all("learning deep"))).contains(List.of("dl-basics"));
        assertThat(ids(indexed, new FullTextRequest("title", "introductio", FullTextRequest.Match.FUZZY_ALL, 1, 0,
                ID_TITLE)).orElseThrow()).containsExactlyInAnyOrder("ml-intro", "rl-intro");

        // Written after the build: an append, an update (delete + re-append) and a delete are all seen.
        long appended = load(Map.of("ql-notes", "Quantum Learning Notes"));
        long updated = load(Map.of("dl-basics", "Deep Networks Basics"));
        TableSnapshot at = storage.open(ref, OptionalLong.of(updated)).block();
        long deleted = storage.commitStaged(storage.stageDelete(at, "id = 'ml-intro'", Map.of()).block().orElseThrow())
                .block().version();
        assertThat(ids(appended, all("learning")).orElseThrow())
                .containsExactlyInAnyOrder("ml-intro", "dl-basics", "rl-intro", "ql-notes");
        assertThat(ids(deleted, all("learning")).orElseThrow()).containsExactlyInAnyOrder("rl-intro", "ql-notes");
        assertThat(ids(deleted, all("networks")).orElseThrow()).containsExactly("dl-basics");
        assertThat(ids(indexed, all("networks")).orElseThrow()).as("the version read, not the latest").isEmpty();
    }

    @Test
    void fuzzyEditsCountCharactersNotBytes() {
        long v = load(Map.of("a", "Über café naïve", "b", "cafeteria"));
        long indexed = index(v);
        FullTextRequest cafe = new FullTextRequest("title", "cafe", FullTextRequest.Match.FUZZY_ALL, 1, 0, ID_TITLE);
        assertThat(ids(indexed, cafe).orElseThrow()).containsExactly("a");
        assertThat(ids(indexed, all("über")).orElseThrow()).containsExactly("a");
    }

    @Test
    void everyMatchComesBackOnceAcrossBatches() {
        Map<String, String> docs = new java.util.HashMap<>();
        for (int i = 0; i < 3000; i++) docs.put("d" + i, "common word number " + i + (i % 3 == 0 ? " rare" : ""));
        long v = load(docs);
        long indexed = index(v);
        assertThat(ids(indexed, all("common")).orElseThrow()).hasSize(3000).doesNotHaveDuplicates();
        assertThat(ids(indexed, all("common rare")).orElseThrow()).hasSize(1000);
        assertThat(ids(indexed, any("rare", 10)).orElseThrow()).hasSize(10);
    }

    @Test
    void anIndexBuiltWithAnotherTokenizerIsNotUsed() throws Exception {
        long v = load(Map.of("a", "to be or not to be"));
        // The engine's earlier settings: stop words kept.
        String old = "{\"base_tokenizer\":\"simple\",\"language\":\"English\",\"with_position\":false,\"lower_case\":true,"
                + "\"stem\":false,\"remove_stop_words\":false,\"ascii_folding\":false,\"max_token_length\":40}";
        try (org.apache.arrow.memory.BufferAllocator allocator = new org.apache.arrow.memory.RootAllocator();
             Dataset dataset = Dataset.open(ref.path(), allocator)) {
            dataset.createIndex(IndexOptions.builder(List.of("title"), IndexType.INVERTED, IndexParams.builder()
                    .setScalarIndexParams(ScalarIndexParams.create("inverted", old)).build()).withIndexName(TITLE.name()).build());
        }
        assertThat(storage.indexNames(ref, v + 1).block()).contains(TITLE.name());
        assertThat(ids(v + 1, any("be", 5))).isEmpty();
        assertThat(LanceFullText.current(null)).isFalse();
    }
}

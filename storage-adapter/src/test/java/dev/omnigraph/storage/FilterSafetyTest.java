package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import dev.omnigraph.storage.error.ValidationError;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Filters on real Lance datasets: text the JNI layer used to misread works, and filters that used to overflow the
 * storage thread's stack (SIGSEGV) or never finish are refused by {@link FilterBounds} before native code sees them.
 */
class FilterSafetyTest extends LanceStorageTestBase {
    static final Schema ITEMS = new Schema(List.of(Field.notNullable("id", new ArrowType.Utf8()),
            Field.nullable("tag", new ArrowType.Utf8()), Field.nullable("tAg", new ArrowType.Utf8())));
    static final String EMOJI = "emoji \uD83D\uDE00";

    TableSnapshot items;

    @BeforeEach
    void createItems() {
        TableSnapshot empty = storage.create(dir.resolve("items").toString(), ITEMS).block();
        List<Map<String, Object>> rows = List.of(Map.of("id", "a", "tag", "x", "tAg", "y"),
                Map.of("id", "b", "tag", "y", "tAg", "x"), Map.of("id", EMOJI, "tag", "it's", "tAg", "\uD83D\uDE80"));
        storage.commitStaged(storage.stageAppend(empty, rows, Map.of()).block()).block();
        items = storage.open(empty.ref(), java.util.OptionalLong.empty()).block();
    }

    private List<String> ids(String filter) {
        return storage.scan(items, ScanRequest.where(filter).withColumns(List.of("id")))
                .flatMapIterable(RowBatch::rows).map(row -> (String) row.get("id")).sort().collectList()
                .block(Duration.ofSeconds(60));
    }

    @Test
    void columnsKeepTheirCase() {
        assertThat(ids(SqlLiterals.eq("tAg", "x"))).containsExactly("b");
        assertThat(ids(SqlLiterals.eq("tag", "x"))).containsExactly("a");
        assertThatThrownBy(() -> SqlLiterals.column("t`ag")).isInstanceOf(BadRequest.class);
    }

    @Test
    void supplementaryPlaneLiteralsMatch() {
        assertThat(ids(SqlLiterals.eq("id", EMOJI))).containsExactly(EMOJI);
        assertThat(ids(SqlLiterals.eq("tAg", "\uD83D\uDE80"))).containsExactly(EMOJI);
        assertThat(ids(SqlLiterals.inList("id", List.of("a", EMOJI)))).containsExactly("a", EMOJI);
        assertThat(ids(SqlLiterals.call("starts_with", "id", SqlLiterals.quote("emoji \uD83D\uDE00")))).containsExactly(EMOJI);
        assertThat(ids(SqlLiterals.eq("tag", "it's"))).containsExactly(EMOJI);
        assertThat(storage.count(items, Optional.of(SqlLiterals.ne("id", EMOJI))).block()).isEqualTo(2);
        var staged = storage.stageDelete(items, SqlLiterals.eq("id", EMOJI), Map.of()).block().orElseThrow();
        storage.commitStaged(staged).block();
        TableSnapshot after = storage.open(items.ref(), java.util.OptionalLong.empty()).block();
        assertThat(storage.count(after, Optional.empty()).block()).isEqualTo(2);
    }

    @Test
    void nulAndLoneSurrogatesAreBadRequestsNeverNativeErrors() {
        for (String bad : List.of("a\u0000", "a\uD83D", "\uDE00b")) {
            assertThatThrownBy(() -> SqlLiterals.quote(bad)).isInstanceOf(BadRequest.class).hasMessageContaining("at character");
            assertThatThrownBy(() -> ids("`id` = '" + bad + "'")).isInstanceOf(BadRequest.class);
            assertThatThrownBy(() -> storage.stageAppend(items, List.of(Map.of("id", bad)), Map.of()).block())
                    .isInstanceOf(ValidationError.class).hasMessageContaining("id");
        }
        assertThatThrownBy(() -> ids("`id` = '" + EMOJI + "'")).isInstanceOf(BadRequest.class); // raw, not via quote
    }

    @Test
    void longBuiltFiltersStayWithinBoundsAndAreAnswered() {
        List<String> many = new ArrayList<>(IntStream.range(0, 20_000).mapToObj(i -> "k" + i).toList());
        many.add("b");
        assertThat(ids(SqlLiterals.inList("id", many))).containsExactly("b");
        List<String> conditions = new ArrayList<>(Collections.nCopies(10_000, SqlLiterals.ne("id", "zz")));
        conditions.add(SqlLiterals.eq("tAg", "x"));
        String all = SqlLiterals.allOf(conditions);
        assertThat(FilterBounds.measure(all).depth()).isLessThan(FilterBounds.MAX_DEPTH);
        assertThat(ids(all)).containsExactly("b");
    }

    @Test
    void filtersThatWouldCrashOrHangTheNativeParserAreRefused() {
        // A left-deep chain of 300 conditions overflowed a 1 MiB storage thread (SIGSEGV) before FilterBounds.
        String chain = String.join(" AND ", Collections.nCopies(300, "(`tag` <> 'q')"));
        assertThatThrownBy(() -> ids(chain)).isInstanceOf(ResourceLimitExceeded.class).hasMessageContaining("depth");
        assertThatThrownBy(() -> storage.count(items, Optional.of(chain)).block()).isInstanceOf(ResourceLimitExceeded.class);
        assertThatThrownBy(() -> storage.stageDelete(items, chain, Map.of()).block()).isInstanceOf(ResourceLimitExceeded.class);
        // Fifty nested NOTs never finished.
        String nots = "NOT (".repeat(50) + "`tag` = 'x'" + ")".repeat(50);
        assertThatThrownBy(() -> ids(nots)).isInstanceOf(ResourceLimitExceeded.class);
        assertThatThrownBy(() -> ids("(".repeat(100_000))).isInstanceOf(ResourceLimitExceeded.class);
        assertThatThrownBy(() -> ids("`tag` = 'x")).isInstanceOf(BadRequest.class);
        assertThat(ids(String.join(" AND ", Collections.nCopies(40, "(`tag` <> 'q')")))).hasSize(3);
    }

    @Test
    void theDepthEstimateIgnoresQuotedText() {
        assertThat(FilterBounds.measure("`a` = 'x AND y OR (z'").depth()).isEqualTo(0);
        assertThat(FilterBounds.measure("a AND b AND c").depth()).isEqualTo(2);
        assertThat(FilterBounds.measure("(a AND (b OR c))").depth()).isEqualTo(4); // each group counts: an over-estimate
        assertThat(FilterBounds.measure("NOT a").nots()).isEqualTo(1);
    }
}

package dev.omnigraph.engine.diff;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;
import reactor.core.publisher.Flux;

/**
 * The bounds of one change page: at most {@code changes} changes and at most {@code bytes} estimated bytes of them
 * (a page always carries at least one change, however large). A stream is read only until the first change past
 * either bound, which stays unreturned and says that more follow; so a page holds on the heap what it returns,
 * plus one change.
 */
record PageBudget(int changes, long bytes) {
    /** Per change, beyond its values: the field names and punctuation of its JSON object. */
    static final long CHANGE_OVERHEAD = 96;

    PageBudget {
        if (changes < 1 || bytes < 1) throw new IllegalArgumentException("a page budget must be positive");
    }

    /** {@code stream} cut right after its first item past a bound (that item included). */
    <T> Flux<T> take(Flux<T> stream, ToLongFunction<T> size) {
        return Flux.defer(() -> {
            long[] used = {0};
            int[] count = {0};
            return stream.takeUntil(item -> beyond(++count[0], used[0] += size.applyAsLong(item)));
        });
    }

    /** How many of {@code taken} (as {@link #take} returned them) make the page: all, unless the last passed a bound. */
    <T> int pageSize(List<T> taken, ToLongFunction<T> size) {
        long used = 0;
        for (int i = 0; i < taken.size(); i++) {
            used += size.applyAsLong(taken.get(i));
            if (beyond(i + 1, used)) return i;
        }
        return taken.size();
    }

    private boolean beyond(int count, long used) {
        return count > changes || (count > 1 && used > bytes);
    }

    /** The estimated JSON size of a change: its names, id and image values as UTF-8, plus a fixed overhead. */
    static long estimate(EntityChange change) {
        return CHANGE_OVERHEAD + utf8(change.kind()) + utf8(change.typeId()) + utf8(change.typeName()) + utf8(change.id())
                + change.before().map(PageBudget::estimate).orElse(0L) + change.after().map(PageBudget::estimate).orElse(0L);
    }

    private static long estimate(EntityChange.Image image) {
        long size = 16 + image.endpoints().map(e -> 24L + utf8(e.from()) + utf8(e.to())).orElse(0L);
        for (Map.Entry<String, Object> entry : image.properties().entrySet()) {
            size += 4 + utf8(entry.getKey()) + value(entry.getValue());
        }
        return size;
    }

    private static long value(Object value) {
        if (value == null) return 4;
        if (value instanceof CharSequence text) return 2 + utf8(text.toString());
        if (value instanceof byte[] bytes) return 2 + (bytes.length + 2L) / 3 * 4; // base64
        if (value instanceof Collection<?> items) {
            long size = 2;
            for (Object item : items) size += 1 + value(item);
            return size;
        }
        if (value instanceof Map<?, ?> map) {
            long size = 2;
            for (Map.Entry<?, ?> entry : map.entrySet()) size += 4 + utf8(String.valueOf(entry.getKey())) + value(entry.getValue());
            return size;
        }
        return String.valueOf(value).length();
    }

    private static long utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}

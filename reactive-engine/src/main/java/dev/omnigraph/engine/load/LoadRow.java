package dev.omnigraph.engine.load;

import dev.omnigraph.engine.load.LoadRecord.EdgeRecord;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A record as the physical row a load stages: its values plus {@code id} (and {@code src}, {@code dst} for an
 * edge), read through rather than copied into a new map per row. Unmodifiable. A record's values never hold
 * {@code id}, and an edge's never {@code src} or {@code dst} (the parser refuses them), so the keys are distinct.
 */
final class LoadRow extends AbstractMap<String, Object> {
    private final LoadRecord record;
    private final EdgeRecord edge; // null for a node

    LoadRow(LoadRecord record) {
        this.record = record;
        this.edge = record instanceof EdgeRecord e ? e : null;
    }

    @Override
    public Object get(Object key) {
        if ("id".equals(key)) return record.id();
        if (edge != null) {
            if ("src".equals(key)) return edge.src();
            if ("dst".equals(key)) return edge.dst();
        }
        return record.values().get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return "id".equals(key) || (edge != null && ("src".equals(key) || "dst".equals(key)))
                || record.values().containsKey(key);
    }

    @Override
    public int size() {
        return record.values().size() + (edge != null ? 3 : 1);
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public int size() {
                return LoadRow.this.size();
            }

            @Override
            public Iterator<Entry<String, Object>> iterator() {
                List<Entry<String, Object>> own = edge != null
                        ? List.of(entry("id", record.id()), entry("src", edge.src()), entry("dst", edge.dst()))
                        : List.of(entry("id", record.id()));
                Iterator<Entry<String, Object>> values = record.values().entrySet().iterator();
                Iterator<Entry<String, Object>> first = own.iterator();
                return new Iterator<>() {
                    @Override
                    public boolean hasNext() {
                        return first.hasNext() || values.hasNext();
                    }

                    @Override
                    public Entry<String, Object> next() {
                        if (first.hasNext()) return first.next();
                        if (values.hasNext()) return values.next();
                        throw new NoSuchElementException();
                    }
                };
            }
        };
    }

    // Map.entry refuses null values; id, src and dst are never null.
    private static Entry<String, Object> entry(String key, Object value) {
        return new SimpleImmutableEntry<>(key, value);
    }
}

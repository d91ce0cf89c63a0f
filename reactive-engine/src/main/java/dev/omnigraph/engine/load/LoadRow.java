package dev.omnigraph.engine.load;

import dev.omnigraph.engine.load.LoadRecord.EdgeRecord;
import dev.omnigraph.storage.PreparedColumns;
import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.Function;

/**
 * A record as the physical row a load stages: its values plus {@code id} (and {@code src}, {@code dst} for an
 * edge), read through rather than copied into a new map per row. Unmodifiable. A record's values never hold
 * {@code id}, and an edge's never {@code src} or {@code dst} (the parser refuses them), so the keys are distinct.
 * The staging and the size estimate iterate every row's keys or values, so those views iterate the record's map
 * directly rather than through the generic entry set.
 */
final class LoadRow extends AbstractMap<String, Object> implements PreparedColumns.Carrier {
    private static final String[] NODE_KEYS = {"id"};
    private static final String[] EDGE_KEYS = {"id", "src", "dst"};

    private final LoadRecord record;
    private final EdgeRecord edge; // null for a node
    private final Map<String, Object> values; // the record's values, read only
    /** Set on a table's first row once the batch is read: its rows' encoded columns (see {@link LoadBatch}). */
    private PreparedColumns prepared;

    LoadRow(LoadRecord record) {
        this.record = record;
        this.edge = record instanceof EdgeRecord e ? e : null;
        this.values = record.values() instanceof FrozenValues frozen ? frozen.owned() : record.values();
    }

    @Override
    public PreparedColumns preparedColumns() {
        return prepared;
    }

    void prepared(PreparedColumns columns) {
        this.prepared = columns;
    }

    @Override
    public Object get(Object key) {
        if ("id".equals(key)) return record.id();
        if (edge != null) {
            if ("src".equals(key)) return edge.src();
            if ("dst".equals(key)) return edge.dst();
        }
        return values.get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return "id".equals(key) || (edge != null && ("src".equals(key) || "dst".equals(key)))
                || values.containsKey(key);
    }

    @Override
    public int size() {
        return values.size() + own().length;
    }

    private String[] own() {
        return edge != null ? EDGE_KEYS : NODE_KEYS;
    }

    private Object ownValue(int index) {
        return switch (index) {
            case 0 -> record.id();
            case 1 -> edge.src();
            default -> edge.dst();
        };
    }

    @Override
    public Set<String> keySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<String> iterator() {
                return iterate(i -> own()[i], values.keySet().iterator());
            }

            @Override
            public int size() {
                return LoadRow.this.size();
            }

            @Override
            public boolean contains(Object key) {
                return containsKey(key);
            }
        };
    }

    @Override
    public Collection<Object> values() {
        return new AbstractCollection<>() {
            @Override
            public Iterator<Object> iterator() {
                return iterate(LoadRow.this::ownValue, values.values().iterator());
            }

            @Override
            public int size() {
                return LoadRow.this.size();
            }
        };
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Entry<String, Object>> iterator() {
                Iterator<Entry<String, Object>> rest = values.entrySet().iterator();
                return iterate(i -> new SimpleImmutableEntry<>(own()[i], ownValue(i)), new Iterator<>() {
                    @Override
                    public boolean hasNext() {
                        return rest.hasNext();
                    }

                    @Override
                    public Entry<String, Object> next() {
                        return new SimpleImmutableEntry<>(rest.next()); // the record's entries are not to be set
                    }
                });
            }

            @Override
            public int size() {
                return LoadRow.this.size();
            }
        };
    }

    /** The own keys' items by index, then {@code rest}; read only (remove is refused). */
    private <T> Iterator<T> iterate(Function<Integer, T> ownItem, Iterator<T> rest) {
        int owned = own().length;
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < owned || rest.hasNext();
            }

            @Override
            public T next() {
                if (next < owned) return ownItem.apply(next++);
                if (!rest.hasNext()) throw new NoSuchElementException();
                return rest.next();
            }
        };
    }
}

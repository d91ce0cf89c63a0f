package dev.omnigraph.engine.load;

import java.util.AbstractMap;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A record's values, unmodifiable and in declaration order (nulls allowed). The parser hands over the map it
 * built and never touches it again, so a record takes it without a copy; any other map is copied once.
 */
final class FrozenValues extends AbstractMap<String, Object> {
    private final LinkedHashMap<String, Object> owned;
    private final Map<String, Object> view;

    private FrozenValues(LinkedHashMap<String, Object> owned) {
        this.owned = owned;
        this.view = Collections.unmodifiableMap(owned);
    }

    /** The map itself, for read-only iteration inside this package without the per-call unmodifiable wrappers. */
    LinkedHashMap<String, Object> owned() {
        return owned;
    }

    /** Takes {@code owned} as is: the caller must not keep or change it. */
    static Map<String, Object> adopt(LinkedHashMap<String, Object> owned) {
        return new FrozenValues(owned);
    }

    /** {@code values} itself when already frozen, else a frozen copy. */
    static Map<String, Object> of(Map<String, Object> values) {
        return values instanceof FrozenValues frozen ? frozen : new FrozenValues(new LinkedHashMap<>(values));
    }

    @Override
    public Object get(Object key) {
        return view.get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return view.containsKey(key);
    }

    @Override
    public int size() {
        return view.size();
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
        return view.entrySet();
    }

    @Override
    public Set<String> keySet() {
        return view.keySet();
    }
}

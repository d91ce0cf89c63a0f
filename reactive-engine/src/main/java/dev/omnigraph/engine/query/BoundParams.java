package dev.omnigraph.engine.query;

import dev.omnigraph.storage.error.BadRequest;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parameter values converted to the engine Java types of their declarations. Every declared parameter has an
 * entry; an absent optional parameter maps to null.
 */
public final class BoundParams {
    private final Map<String, ParamDecl> decls;
    private final Map<String, Object> values;

    BoundParams(List<ParamDecl> decls, Map<String, Object> values) {
        Map<String, ParamDecl> d = new LinkedHashMap<>();
        for (ParamDecl p : decls) d.put(p.name(), p);
        this.decls = Collections.unmodifiableMap(d);
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    public static BoundParams empty() {
        return new BoundParams(List.of(), Map.of());
    }

    /** The bound value (null for an absent optional parameter). @throws BadRequest for an undeclared name */
    public Object get(String name) {
        if (!values.containsKey(name)) throw new BadRequest("param $" + name + " is not declared by this query");
        return values.get(name);
    }

    public ParamDecl decl(String name) {
        ParamDecl d = decls.get(name);
        if (d == null) throw new BadRequest("param $" + name + " is not declared by this query");
        return d;
    }

    /** Name (without {@code $}) → value, in declaration order; values may be null. */
    public Map<String, Object> asMap() {
        return values;
    }

    @Override
    public String toString() {
        return "BoundParams" + values;
    }
}

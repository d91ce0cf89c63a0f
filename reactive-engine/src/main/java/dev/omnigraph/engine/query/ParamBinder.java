package dev.omnigraph.engine.query;

import dev.omnigraph.storage.ValidText;
import dev.omnigraph.storage.error.BadRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/** Turns caller-supplied parameter values (as Jackson delivers them from JSON, or engine values) into {@link BoundParams}. */
final class ParamBinder {
    private ParamBinder() {}

    /**
     * @param raw name → value; names may be written with or without the leading {@code $}; may be null (no params)
     * @throws BadRequest naming the parameter: a value of the wrong type or out of range, a missing required
     *         parameter, an explicit null for a required one, a name the query does not declare, or text that
     *         is not valid Unicode or holds a NUL ({@link ValidText}) in a name, a value or a list element
     */
    public static BoundParams bind(List<ParamDecl> decls, Map<String, Object> raw) {
        Map<String, Object> given = new LinkedHashMap<>();
        if (raw != null) {
            for (Map.Entry<String, Object> e : raw.entrySet()) {
                ValidText.require("param name", e.getKey());
                String name = e.getKey().startsWith("$") ? e.getKey().substring(1) : e.getKey();
                requireValidText(name, e.getValue());
                if (given.containsKey(name)) throw new BadRequest("param $" + name + " is given twice");
                given.put(name, e.getValue());
            }
        }
        Set<String> declared = decls.stream().map(ParamDecl::name).collect(Collectors.toSet());
        for (String name : given.keySet()) {
            if (!declared.contains(name)) {
                String known = decls.isEmpty() ? "the query declares no parameters"
                        : "declared: " + decls.stream().map(d -> "$" + d.name()).collect(Collectors.joining(", "));
                throw new BadRequest("unknown param $" + name + " (" + known + ")");
            }
        }
        Map<String, Object> values = new LinkedHashMap<>();
        for (ParamDecl d : decls) {
            Object value = given.get(d.name());
            if (value == null) {
                if (!d.optional()) {
                    throw new BadRequest(given.containsKey(d.name())
                            ? "param $" + d.name() + ": expected " + d.spelling() + ", got null"
                            : "missing required param $" + d.name() + " (" + d.spelling() + ")");
                }
                values.put(d.name(), null);
                continue;
            }
            try {
                values.put(d.name(), Values.coerce(value, d.type(), false));
            } catch (Values.Mismatch m) {
                throw new BadRequest("param $" + d.name() + ": " + m.getMessage());
            }
        }
        return new BoundParams(decls, values);
    }

    /** Text in a value (or, for lists, an element) must be valid before it can reach a message or native code. */
    private static void requireValidText(String name, Object value) {
        if (value instanceof String s) {
            ValidText.require("param $" + name, s);
        } else if (value instanceof List<?> items) {
            for (int i = 0; i < items.size(); i++) {
                if (items.get(i) instanceof String s) ValidText.require("param $" + name + " element " + i, s);
            }
        }
    }
}

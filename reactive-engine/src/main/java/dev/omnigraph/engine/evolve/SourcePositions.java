package dev.omnigraph.engine.evolve;

import dev.omnigraph.storage.error.ValidationError;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Positions in a new {@code .pg} for refusals of a schema change: the line and column of a type's declaration,
 * or of a property inside it (1-based), so an error points where the user has to edit.
 */
final class SourcePositions {
    private final String source;

    SourcePositions(String source) {
        this.source = source;
    }

    /** A refusal of a change to {@code typeName} (and {@code property}, when not null), with its position. */
    ValidationError refuse(String typeName, String property, String code, String message) {
        int at = typeOffset(typeName);
        if (at >= 0 && property != null) {
            Matcher prop = Pattern.compile("\\b" + Pattern.quote(property) + "\\s*:").matcher(source);
            if (prop.find(at)) {
                at = prop.start();
            }
        }
        String where = at < 0 ? "schema" : "schema:" + line(at) + ":" + column(at);
        String subject = property == null ? typeName : typeName + "." + property;
        return new ValidationError(typeName, property, null, where + ": [" + subject + "] " + code + ": " + message);
    }

    private int typeOffset(String typeName) {
        Matcher type = Pattern.compile("\\b(node|edge|interface)\\s+" + Pattern.quote(typeName) + "\\b").matcher(source);
        return type.find() ? type.start() : -1;
    }

    private int line(int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) {
            if (source.charAt(i) == '\n') line++;
        }
        return line;
    }

    private int column(int offset) {
        int lineStart = source.lastIndexOf('\n', offset - 1) + 1;
        return offset - lineStart + 1;
    }
}

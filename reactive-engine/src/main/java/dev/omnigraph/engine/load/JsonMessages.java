package dev.omnigraph.engine.load;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.regex.Pattern;

/**
 * Jackson's message for malformed JSON, in words for whoever sent the JSON: without the parser's source
 * description, and without the hints Jackson addresses to the program that parses (the Java setting that would
 * lift a limit or admit a non-standard token), which name library classes and options a client cannot change.
 */
public final class JsonMessages {
    private static final Pattern SOURCE = Pattern.compile("\\[Source: [^;\\]]*; ");
    /** {@code (1001) exceeds the maximum allowed (1000, from `StreamReadConstraints.getMaxNestingDepth()`)}. */
    private static final Pattern LIMIT_ORIGIN = Pattern.compile(", from `[^`]*`\\)");
    /** {@code Non-standard token 'NaN': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow}. */
    private static final Pattern ENABLE_HINT = Pattern.compile(":?\\s*enable `[^`]*` to allow");
    /** {@code maybe a (non-standard) comment? (not recognized as one since Feature 'ALLOW_COMMENTS' not enabled …)}. */
    private static final Pattern COMMENT_HINT = Pattern.compile(
            "maybe a \\(non-standard\\) comment\\? \\(not recognized as one since Feature '[A-Z_]+' not enabled for parser\\)");
    /** Whatever other option or class Jackson names in backquotes. */
    private static final Pattern BACKQUOTED = Pattern.compile("`[^`]*`");

    private JsonMessages() {
    }

    /** "malformed JSON: " and Jackson's own description of the problem, cleaned. */
    public static String malformed(JsonProcessingException e) {
        String message = e.getOriginalMessage() == null ? "unreadable" : e.getOriginalMessage();
        message = SOURCE.matcher(message).replaceAll("[");
        message = LIMIT_ORIGIN.matcher(message).replaceAll(")");
        message = ENABLE_HINT.matcher(message).replaceAll(" (not JSON)");
        message = COMMENT_HINT.matcher(message).replaceAll("comments are not JSON");
        message = BACKQUOTED.matcher(message).replaceAll("a parser setting");
        return "malformed JSON: " + message;
    }
}

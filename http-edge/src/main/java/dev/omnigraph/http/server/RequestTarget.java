package dev.omnigraph.http.server;

import dev.omnigraph.http.wire.HttpProblem;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A request URI split for routing: the path as raw (still percent-encoded) segments, so an encoded {@code /} can
 * never create or remove a segment, and the decoded query parameters. Routes match on the raw segments and decode
 * only what they capture ({@link #decode}); malformed encoding anywhere is a 400, never an exception escaping the
 * request.
 */
record RequestTarget(List<String> rawSegments, Map<String, List<String>> query) {

    static RequestTarget parse(String uri) {
        // A fragment is the client's own (browsers never send it); what follows '#' is neither path nor query.
        int fragment = uri.indexOf('#');
        QueryStringDecoder decoder = new QueryStringDecoder(fragment < 0 ? uri : uri.substring(0, fragment));
        List<String> segments = new ArrayList<>();
        for (String part : decoder.rawPath().split("/")) {
            if (part.isEmpty()) continue;
            decode(part); // refused now, whether or not a route would capture it
            segments.add(part);
        }
        return new RequestTarget(List.copyOf(segments), query(decoder.rawQuery()));
    }

    /**
     * The query string's parameters, in order, each name with all its values. Decoded strictly, as the path is
     * ({@code +} is a space here): Netty's decoder would turn bytes that are not UTF-8 into U+FFFD, a different
     * value from the one sent, and would split on {@code ;} as well, where other servers read it as data.
     */
    static Map<String, List<String>> query(String raw) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) return out;
        for (String pair : raw.split("&")) {
            if (pair.isEmpty()) continue;
            int eq = pair.indexOf('=');
            String name = component(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "" : component(pair.substring(eq + 1));
            if (name.isEmpty()) continue;
            out.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
        }
        return out;
    }

    private static String component(String raw) {
        try {
            return strict(raw.replace('+', ' '));
        } catch (IllegalArgumentException why) {
            throw HttpProblem.badRequest("the query string is not valid percent-encoding: '" + raw + "': " + why.getMessage());
        }
    }

    /** The raw path for messages ({@code /a/b}); raw so a message never shows a decoded separator. */
    String rawPath() {
        return "/" + String.join("/", rawSegments);
    }

    /**
     * One path segment percent-decoded as UTF-8 ({@code +} stays {@code +}, as in any path). A truncated escape, a
     * non-hex digit or bytes that are not UTF-8 are a 400 naming the segment.
     */
    static String decode(String segment) {
        try {
            return strict(segment);
        } catch (IllegalArgumentException why) {
            throw malformed(segment, why.getMessage());
        }
    }

    /**
     * Percent-decodes {@code text} as UTF-8. Netty reads the request line as ISO-8859-1, one char per byte, so a
     * char above U+007F is a raw byte of the request line and joins the UTF-8 decoding as that byte.
     */
    private static String strict(String text) {
        if (text.indexOf('%') < 0 && text.chars().allMatch(c -> c < 0x80)) return text;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != '%') {
                if (c < 0x100) bytes.write(c);
                else bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
                continue;
            }
            int high = i + 2 < text.length() ? Character.digit(text.charAt(i + 1), 16) : -1;
            int low = high >= 0 ? Character.digit(text.charAt(i + 2), 16) : -1;
            if (low < 0) throw new IllegalArgumentException("'%' must be followed by two hex digits");
            bytes.write(high * 16 + low);
            i += 2;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("the decoded bytes are not UTF-8");
        }
    }

    private static HttpProblem malformed(String segment, String why) {
        return HttpProblem.badRequest("path segment '" + segment + "' is not valid percent-encoding: " + why);
    }
}

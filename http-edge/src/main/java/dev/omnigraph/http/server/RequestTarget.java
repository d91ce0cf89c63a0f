package dev.omnigraph.http.server;

import dev.omnigraph.http.wire.HttpProblem;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
        QueryStringDecoder decoder = new QueryStringDecoder(uri);
        List<String> segments = new ArrayList<>();
        for (String part : decoder.rawPath().split("/")) {
            if (part.isEmpty()) continue;
            decode(part); // refused now, whether or not a route would capture it
            segments.add(part);
        }
        Map<String, List<String>> query;
        try {
            query = decoder.parameters();
        } catch (IllegalArgumentException malformed) {
            throw HttpProblem.badRequest("the query string is not valid percent-encoding: " + malformed.getMessage());
        }
        return new RequestTarget(List.copyOf(segments), query);
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
        if (segment.indexOf('%') < 0) return segment;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(segment.length());
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c != '%') {
                bytes.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
                continue;
            }
            int high = i + 2 < segment.length() ? Character.digit(segment.charAt(i + 1), 16) : -1;
            int low = high >= 0 ? Character.digit(segment.charAt(i + 2), 16) : -1;
            if (low < 0) throw malformed(segment, "'%' must be followed by two hex digits");
            bytes.write(high * 16 + low);
            i += 2;
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw malformed(segment, "the decoded bytes are not UTF-8");
        }
    }

    private static HttpProblem malformed(String segment, String why) {
        return HttpProblem.badRequest("path segment '" + segment + "' is not valid percent-encoding: " + why);
    }
}

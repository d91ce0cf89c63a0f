package dev.omnigraph.engine.diff;

import dev.omnigraph.storage.error.BadRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The opaque strings of the change surfaces (commit page tokens, feed cursors, feed page tokens): a kind tag and
 * length-prefixed text parts, base64url without padding. Anything that does not decode to the expected kind and
 * part count is refused as a BadRequest "{@code <what> rejected: …}", never a server fault.
 */
final class ChangeTokens {
    private static final int MAX_CHARS = 16 * 1024;

    private ChangeTokens() {
    }

    static String encode(String kind, List<String> parts) {
        StringBuilder out = new StringBuilder(kind);
        for (String part : parts) out.append('|').append(part.length()).append(':').append(part);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(out.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The {@code count} parts of a token of {@code kind}; {@code what} names it in the refusal. */
    static List<String> decode(String what, String kind, int count, String token) {
        if (token.length() > MAX_CHARS) throw rejected(what, "it is longer than " + MAX_CHARS + " characters");
        String text;
        try {
            text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException notBase64) {
            throw rejected(what, "it is not a token this server issued");
        }
        if (!text.startsWith(kind + "|") && !(count == 0 && text.equals(kind))) {
            throw rejected(what, "it is not a " + what + " (was another token passed?)");
        }
        List<String> parts = new ArrayList<>();
        int at = kind.length();
        while (at < text.length()) {
            if (text.charAt(at) != '|') throw rejected(what, "it is corrupt");
            int colon = text.indexOf(':', at);
            if (colon < 0) throw rejected(what, "it is corrupt");
            int length;
            try {
                length = Integer.parseInt(text.substring(at + 1, colon));
            } catch (NumberFormatException corrupt) {
                throw rejected(what, "it is corrupt");
            }
            if (length < 0 || colon + 1 + length > text.length()) throw rejected(what, "it is truncated");
            parts.add(text.substring(colon + 1, colon + 1 + length));
            at = colon + 1 + length;
        }
        if (parts.size() != count) throw rejected(what, "it has " + parts.size() + " parts, expected " + count);
        return List.copyOf(parts);
    }

    static BadRequest rejected(String what, String why) {
        return new BadRequest(what + " rejected: " + why);
    }
}

package dev.omnigraph.http.server;

import dev.omnigraph.storage.error.BadRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Bearer tokens and the actor each one writes as. Configured as {@code token=actor} entries, one per line of a
 * file, or separated by newlines or commas in {@code OMNIGRAPH_TOKENS}. Only SHA-256 digests are kept, and a
 * presented token is compared against every entry with {@link MessageDigest#isEqual}, so neither its length nor
 * the position of the first differing byte shows in the timing.
 */
public final class BearerTokens {
    public static final String ENV = "OMNIGRAPH_TOKENS";
    private static final BearerTokens NONE = new BearerTokens(List.of());

    private record Entry(byte[] digest, String actor) {
    }

    private final List<Entry> entries;

    private BearerTokens(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    public static BearerTokens none() {
        return NONE;
    }

    /**
     * Parses {@code token=actor} entries; blank entries and {@code #} comments are skipped. The actor follows the
     * last {@code =}, so tokens may contain {@code =} (base64 padding) and actor names may not.
     */
    public static BearerTokens parse(String text, String origin) {
        List<Entry> entries = new ArrayList<>();
        int number = 0;
        for (String raw : text.split("[\\n,]")) {
            number++;
            String entry = raw.strip();
            if (entry.isEmpty() || entry.startsWith("#")) continue;
            int eq = entry.lastIndexOf('=');
            if (eq <= 0 || eq == entry.length() - 1) {
                throw new BadRequest(origin + " entry " + number + " is not token=actor");
            }
            String token = entry.substring(0, eq).strip();
            String actor = entry.substring(eq + 1).strip();
            if (token.length() < 8) {
                throw new BadRequest(origin + " entry " + number + ": tokens must be at least 8 characters");
            }
            entries.add(new Entry(digest(token), actor));
        }
        return new BearerTokens(entries);
    }

    /**
     * Reads a token file (blocking: call at start-up, never on an event loop). A missing or unreadable file is a
     * {@link BadRequest} naming {@code what} (the flag that gave it), not an internal error.
     */
    public static BearerTokens fromFile(Path file, String what) {
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8), what + " " + file);
        } catch (NoSuchFileException e) {
            throw new BadRequest(what + " " + file + ": no such file");
        } catch (IOException e) {
            throw new BadRequest(what + " " + file + ": cannot be read (" + e.getClass().getSimpleName() + ")");
        }
    }

    public static BearerTokens fromFile(Path file) {
        return fromFile(file, "token file");
    }

    /** The tokens of {@code OMNIGRAPH_TOKENS}, or none when it is unset or blank. */
    public static BearerTokens fromEnvironment(String value) {
        return value == null || value.isBlank() ? NONE : parse(value, ENV);
    }

    public boolean enabled() {
        return !entries.isEmpty();
    }

    public int size() {
        return entries.size();
    }

    /** The actor of an {@code Authorization} header value, or empty when it names no configured token. */
    public Optional<String> actorFor(String authorization) {
        if (authorization == null) return Optional.empty();
        String value = authorization.strip();
        if (value.length() < 7 || !value.regionMatches(true, 0, "Bearer ", 0, 7)) return Optional.empty();
        byte[] presented = digest(value.substring(7).strip());
        String actor = null;
        for (Entry entry : entries) {
            // No early exit: every entry is compared whatever matched.
            if (MessageDigest.isEqual(presented, entry.digest()) && actor == null) {
                actor = entry.actor();
            }
        }
        return Optional.ofNullable(actor);
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}

package dev.omnigraph.storage;

import dev.omnigraph.storage.error.BadRequest;
import java.util.Collection;
import java.util.regex.Pattern;

/**
 * The one place branch names are checked before any Lance call. Lance's own rules, plus path-prefix
 * disjointness: Lance deletes a branch's files by character prefix, so {@code a} next to {@code a/b}, or
 * {@code ab} next to {@code a/b}, can destroy a sibling's data.
 */
public final class LanceBranchNames {
    private static final Pattern SEGMENT = Pattern.compile("[A-Za-z0-9._-]+");
    public static final int MAX_LENGTH = 200;

    private LanceBranchNames() {
    }

    public static void requireValid(String name) {
        String problem = problem(name);
        if (problem != null) {
            throw new BadRequest("invalid branch name '" + printable(name) + "': " + problem);
        }
    }

    private static String problem(String name) {
        if (name == null || name.isEmpty()) return "it is empty";
        if (name.length() > MAX_LENGTH) return "it is longer than " + MAX_LENGTH + " characters";
        if (name.equals("main")) return "'main' is the default branch and cannot be created or deleted";
        if (name.startsWith("__")) return "names starting with '__' are reserved for internals";
        if (name.startsWith("/") || name.endsWith("/")) return "it must not start or end with '/'";
        if (name.contains("//")) return "it must not contain '//'";
        if (name.contains("..")) return "it must not contain '..'";
        if (name.endsWith(".lock")) return "it must not end with '.lock'";
        for (String segment : name.split("/")) {
            if (!SEGMENT.matcher(segment).matches()) {
                return "segment '" + printable(segment) + "' may only hold letters, digits, '.', '-' and '_'";
            }
            if (segment.equals(".")) return "'.' is not a valid segment";
        }
        return null;
    }

    /**
     * Refuses {@code candidate} when it and a live branch are character prefixes of one another, also after
     * dropping '/' (observed: deleting {@code ab} destroyed {@code a/b}; deleting {@code feat2} broke on {@code feat}).
     */
    public static void requireDisjoint(String candidate, Collection<String> liveBranches) {
        requireValid(candidate);
        for (String live : liveBranches) {
            if (live.equals(candidate)) {
                continue;
            }
            String a = live.replace("/", "");
            String b = candidate.replace("/", "");
            if (live.startsWith(candidate) || candidate.startsWith(live) || a.startsWith(b) || b.startsWith(a)) {
                throw new BadRequest("branch name '" + candidate + "' clashes with existing branch '" + live
                        + "': names that are prefixes of one another cannot coexist (Lance cleans branch files by prefix)");
            }
        }
    }

    private static String printable(String text) {
        if (text == null) return "null";
        StringBuilder out = new StringBuilder();
        text.codePoints().limit(80).forEach(cp -> {
            if (cp < 0x20 || cp == 0x7f) out.append(String.format("\\u%04x", cp));
            else out.appendCodePoint(cp);
        });
        return out.toString();
    }
}

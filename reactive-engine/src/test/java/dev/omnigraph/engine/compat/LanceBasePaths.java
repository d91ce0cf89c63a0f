package dev.omnigraph.engine.compat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

/**
 * Re-homes the Lance base paths of a graph root that was copied to another directory.
 *
 * <p>Why a test needs this: a Lance branch is a shallow clone, and Lance 0.39 records in every manifest of a branch
 * ({@code <dataset>/tree/<branch>/_versions/*.manifest}) the <em>absolute</em> path of the dataset it was cloned
 * from, as a {@code BasePath} ({@code Manifest.base_paths}, field 18; {@code BasePath.path}, field 4). The branch
 * reads every fragment it inherited through that path. A copied root therefore reads its branches from the
 * directory it was copied from: they fail once that directory is gone (the committed fixture's case) and silently
 * read the original while it exists. Lance's format documents this (base paths are absolute; a relocated dataset
 * must have them updated), neither Lance 0.39 Java nor the engine offers the update, and the engine may not write
 * Lance manifests itself: this class does it for copies of the fixture, and nothing else.
 *
 * <p>Rule: in every {@code *.manifest} under the root, a base path that names the manifest's own dataset (ends with
 * {@code /<location>}, or {@code /<location>/tree/<branch>} for a branch of a branch) under another directory is
 * moved under {@code root}; a base path naming anything else fails loudly. Only the manifest message changes (the
 * file is rewritten through a temp file and a rename); transaction files ({@code .txn}, the Clone's source path
 * included) are left as written.
 */
final class LanceBasePaths {
    private static final byte[] MAGIC = "LANC".getBytes(StandardCharsets.US_ASCII);
    private static final int TRAILER = 16; // u64 manifest position, u16 major, u16 minor, magic
    private static final int BASE_PATHS = 18;
    private static final int BASE_PATH_PATH = 4;

    private LanceBasePaths() {
    }

    /** Moves every base path of {@code root}'s datasets under {@code root}; returns the manifests it rewrote. */
    static List<Path> rehome(Path root) throws IOException {
        List<Path> rewritten = new ArrayList<>();
        List<Path> manifests;
        try (Stream<Path> files = Files.walk(root)) {
            manifests = files.filter(file -> file.getFileName().toString().endsWith(".manifest")).sorted().toList();
        }
        for (Path manifest : manifests) {
            String relative = root.relativize(manifest).toString().replace('\\', '/');
            int tree = relative.indexOf("/tree/");
            int versions = relative.indexOf("/_versions/");
            String location = relative.substring(0, tree >= 0 ? tree : versions);
            byte[] before = Files.readAllBytes(manifest);
            byte[] after = rewrite(before, root.toString(), location, manifest);
            if (!Arrays.equals(before, after)) {
                Path temp = manifest.resolveSibling(manifest.getFileName() + ".rehome");
                Files.write(temp, after);
                Files.move(temp, manifest, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                rewritten.add(manifest);
            }
        }
        return rewritten;
    }

    /** The manifest file with its base paths re-homed (the same bytes when none needs it). */
    static byte[] rewrite(byte[] file, String root, String location, Path name) {
        ByteBuffer trailer = ByteBuffer.wrap(file, file.length - TRAILER, TRAILER).order(ByteOrder.LITTLE_ENDIAN);
        long position = trailer.getLong();
        if (!Arrays.equals(Arrays.copyOfRange(file, file.length - 4, file.length), MAGIC) || position < 0
                || position + 4 > file.length - TRAILER) {
            throw new IllegalStateException(name + " is not a Lance manifest file this helper knows");
        }
        int start = (int) position;
        int length = ByteBuffer.wrap(file, start, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (start + 4 + length != file.length - TRAILER) {
            throw new IllegalStateException(name + ": the manifest message does not end at the trailer");
        }
        byte[] message = Arrays.copyOfRange(file, start + 4, start + 4 + length);
        byte[] rewritten = rewriteFields(message, BASE_PATHS,
                basePath -> rewriteFields(basePath, BASE_PATH_PATH, path -> rehomed(path, root, location, name)));
        if (Arrays.equals(message, rewritten)) {
            return file;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(file, 0, start);
        out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(rewritten.length).array());
        out.writeBytes(rewritten);
        out.write(file, file.length - TRAILER, TRAILER); // the message still starts at the same position
        return out.toByteArray();
    }

    private static byte[] rehomed(byte[] pathBytes, String root, String location, Path name) {
        String path = new String(pathBytes, StandardCharsets.UTF_8);
        if (path.startsWith(root + "/")) {
            return pathBytes;
        }
        int at = path.lastIndexOf("/" + location);
        String rest = at < 0 ? null : path.substring(at + 1 + location.length());
        if (rest == null || !(rest.isEmpty() || rest.startsWith("/tree/"))) {
            throw new IllegalStateException(name + " has base path " + path + ", which is not its own dataset " + location);
        }
        return (root + "/" + location + rest).getBytes(StandardCharsets.UTF_8);
    }

    /** A protobuf message with every length-delimited field {@code field} passed through {@code change}. */
    private static byte[] rewriteFields(byte[] message, int field, java.util.function.UnaryOperator<byte[]> change) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int[] at = {0};
        while (at[0] < message.length) {
            int tagStart = at[0];
            long tag = varint(message, at);
            int wireType = (int) (tag & 7);
            switch (wireType) {
                case 0 -> varint(message, at);
                case 1 -> at[0] += 8;
                case 5 -> at[0] += 4;
                case 2 -> {
                    int size = (int) varint(message, at);
                    if (tag >>> 3 == field) {
                        byte[] changed = change.apply(Arrays.copyOfRange(message, at[0], at[0] + size));
                        writeVarint(out, tag);
                        writeVarint(out, changed.length);
                        out.writeBytes(changed);
                        at[0] += size;
                        continue;
                    }
                    at[0] += size;
                }
                default -> throw new IllegalStateException("unsupported protobuf wire type " + wireType);
            }
            out.write(message, tagStart, at[0] - tagStart);
        }
        return out.toByteArray();
    }

    private static long varint(byte[] bytes, int[] at) {
        long value = 0;
        for (int shift = 0; ; shift += 7) {
            byte b = bytes[at[0]++];
            value |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
    }

    private static void writeVarint(ByteArrayOutputStream out, long value) {
        while ((value & ~0x7fL) != 0) {
            out.write((int) ((value & 0x7f) | 0x80));
            value >>>= 7;
        }
        out.write((int) value);
    }
}

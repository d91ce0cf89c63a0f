package dev.omnigraph.storage;

import dev.omnigraph.storage.error.StorageFault;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which fragments each index of a version covers. Lance Java 0.39 lists indexes by name only, so this reads the
 * index section of the version's manifest file itself (lance {@code table.proto}: the file ends with the manifest's
 * position and {@code LANC}; the manifest's field 6 is the position of the {@code IndexSection}; each
 * {@code IndexMetadata} has its name in field 3 and a Roaring bitmap of fragment ids in field 5). Local roots only:
 * elsewhere coverage is unknown (empty).
 */
final class LanceIndexCoverage {
    private static final byte[] MAGIC = "LANC".getBytes(StandardCharsets.US_ASCII);
    private static final int FOOTER = 16;

    private LanceIndexCoverage() {
    }

    /** One index of a version: its uuid (hex; a rebuild gets a new one) and the fragment ids it covers. */
    record IndexMeta(String uuid, Set<Integer> fragments) {
    }

    /** The fragment ids each index of {@code version} of {@code ref} covers, by index name; empty when unknown. */
    static Optional<Map<String, Set<Integer>>> read(TableRef ref, long version) {
        return indexes(ref, version).map(found -> {
            Map<String, Set<Integer>> out = new LinkedHashMap<>();
            found.forEach((name, meta) -> out.put(name, meta.fragments()));
            return out;
        });
    }

    /** Each index of {@code version} of {@code ref} by name; empty when the manifest is not a local file. */
    static Optional<Map<String, IndexMeta>> indexes(TableRef ref, long version) {
        Optional<Path> dir = BranchTrees.localPath(ref.path())
                .map(root -> ref.branch().map(b -> root.resolve("tree").resolve(b)).orElse(root).resolve("_versions"));
        if (dir.isEmpty()) {
            return Optional.empty();
        }
        Path v1 = dir.get().resolve(version + ".manifest");
        Path v2 = dir.get().resolve(String.format("%20s", Long.toUnsignedString(~version)).replace(' ', '0') + ".manifest");
        Path file = Files.exists(v1) ? v1 : v2;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            ByteBuffer footer = read(channel, size - FOOTER, FOOTER);
            byte[] magic = new byte[4];
            footer.position(12);
            footer.get(magic);
            if (!Arrays.equals(magic, MAGIC)) {
                throw new StorageFault("manifest " + file + " does not end with LANC", null);
            }
            long manifestAt = footer.getLong(0);
            OptionalLongField section = indexSection(message(channel, manifestAt));
            Map<String, IndexMeta> out = new LinkedHashMap<>();
            if (section.present) {
                ProtoReader indexes = new ProtoReader(message(channel, section.value));
                while (indexes.next()) {
                    if (indexes.field() == 1 && indexes.wireType() == 2) {
                        index(new ProtoReader(indexes.bytes()), out);
                    } else {
                        indexes.skip();
                    }
                }
            }
            return Optional.of(out);
        } catch (IOException e) {
            throw new StorageFault("cannot read the index section of " + file + ": " + e.getMessage(), e);
        }
    }

    private record OptionalLongField(boolean present, long value) {
    }

    private static OptionalLongField indexSection(ByteBuffer manifest) {
        ProtoReader reader = new ProtoReader(manifest);
        while (reader.next()) {
            if (reader.field() == 6 && reader.wireType() == 0) {
                return new OptionalLongField(true, reader.varint());
            }
            reader.skip();
        }
        return new OptionalLongField(false, 0);
    }

    private static void index(ProtoReader reader, Map<String, IndexMeta> out) {
        String name = null;
        String uuid = "";
        Set<Integer> fragments = new TreeSet<>();
        while (reader.next()) {
            if (reader.field() == 1 && reader.wireType() == 2) {
                uuid = java.util.HexFormat.of().formatHex(bytesOf(reader.bytes()));
            } else if (reader.field() == 3 && reader.wireType() == 2) {
                ByteBuffer text = reader.bytes();
                byte[] bytes = new byte[text.remaining()];
                text.get(bytes);
                name = new String(bytes, StandardCharsets.UTF_8);
            } else if (reader.field() == 5 && reader.wireType() == 2) {
                fragments = RoaringIds.read(reader.bytes());
            } else {
                reader.skip();
            }
        }
        if (name != null) {
            out.put(name, new IndexMeta(uuid, fragments));
        }
    }

    private static byte[] bytesOf(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }

    /** A length-prefixed (u32 LE) protobuf message at {@code position}. */
    private static ByteBuffer message(FileChannel channel, long position) throws IOException {
        int length = read(channel, position, 4).getInt(0);
        if (length < 0 || position + 4 + length > channel.size()) {
            throw new IOException("message at " + position + " of length " + length + " runs past the file");
        }
        return read(channel, position + 4, length);
    }

    private static ByteBuffer read(FileChannel channel, long position, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer, position + buffer.position()) < 0) {
                throw new IOException("unexpected end of file at " + (position + buffer.position()));
            }
        }
        return buffer.flip();
    }

    /** The few protobuf wire-format reads the index section needs. */
    private static final class ProtoReader {
        private final ByteBuffer buffer;
        private int key;

        ProtoReader(ByteBuffer buffer) {
            this.buffer = buffer;
        }

        boolean next() {
            if (!buffer.hasRemaining()) return false;
            key = (int) varint();
            return true;
        }

        int field() {
            return key >>> 3;
        }

        int wireType() {
            return key & 7;
        }

        long varint() {
            long value = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                byte b = buffer.get();
                value |= (long) (b & 0x7F) << shift;
                if ((b & 0x80) == 0) return value;
            }
            throw new IllegalStateException("malformed varint");
        }

        ByteBuffer bytes() {
            int length = (int) varint();
            ByteBuffer slice = buffer.slice(buffer.position(), length).order(ByteOrder.LITTLE_ENDIAN);
            buffer.position(buffer.position() + length);
            return slice;
        }

        void skip() {
            switch (wireType()) {
                case 0 -> varint();
                case 1 -> buffer.position(buffer.position() + 8);
                case 2 -> bytes();
                case 5 -> buffer.position(buffer.position() + 4);
                default -> throw new IllegalStateException("unsupported wire type " + wireType());
            }
        }
    }
}

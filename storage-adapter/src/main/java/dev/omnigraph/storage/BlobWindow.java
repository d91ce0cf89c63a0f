package dev.omnigraph.storage;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * Which bytes of one blob to read, decided by the storage once it knows the blob's size (an HTTP suffix range
 * needs the size; an offset past the end is refused without reading anything). A pure function: it runs on a
 * storage thread and must not block or throw.
 */
@FunctionalInterface
public interface BlobWindow {

    /** The bytes {@code [offset, offset + length)} of a blob of {@code size} bytes to read; empty when unsatisfiable. */
    Optional<Span> within(long size);

    /** A satisfiable range: {@code 0 <= offset}, {@code offset + length <= size}. */
    record Span(long offset, long length) {
        public Span {
            if (offset < 0 || length < 0) throw new IllegalArgumentException("negative blob span " + offset + "+" + length);
        }
    }

    /** Every byte. */
    static BlobWindow whole() {
        return size -> Optional.of(new Span(0, size));
    }

    /**
     * From {@code offset}, at most {@code length} bytes (to the end when empty); a length reaching past the end
     * is cut there. Unsatisfiable when {@code offset} is at or past the end, except offset 0 of an empty blob.
     */
    static BlobWindow from(long offset, OptionalLong length) {
        if (offset < 0 || length.orElse(0) < 0) throw new IllegalArgumentException("offset and length must be >= 0");
        return size -> {
            if (offset > size || offset == size && offset > 0) return Optional.empty();
            long rest = size - offset;
            return Optional.of(new Span(offset, length.isPresent() ? Math.min(rest, length.getAsLong()) : rest));
        };
    }
}

package dev.omnigraph.engine.load;

import dev.omnigraph.storage.error.ResourceLimitExceeded;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Cuts a stream of byte chunks into lines at LF, stripping one trailing CR. Works on bytes, not chars: LF
 * never occurs inside a multi-byte UTF-8 sequence, so chunk boundaries may fall anywhere and decoding is
 * left to the JSON parser. Not thread-safe; one instance per subscription.
 */
final class LineSplitter {
    static final String LIMIT_NAME = "graph_batch_line_bytes";

    /**
     * One physical line (terminator removed), or the line that broke the byte cap ({@code error} set,
     * {@code bytes} null). Empty lines are never produced.
     */
    record Line(int number, byte[] bytes, ResourceLimitExceeded error) {}

    private final int maxLineBytes;
    private byte[] carry = new byte[256];
    private int carryLength;
    private int lineNumber = 1;
    private boolean failed;

    LineSplitter(int maxLineBytes) {
        if (maxLineBytes < 1) throw new IllegalArgumentException("maxLineBytes must be >= 1: " + maxLineBytes);
        this.maxLineBytes = maxLineBytes;
    }

    /**
     * The lines completed by this chunk. An over-long line becomes a final error element (after the good
     * lines before it) so records keep input order; everything after it is ignored.
     */
    List<Line> feed(ByteBuffer chunk) {
        List<Line> out = new ArrayList<>();
        ByteBuffer in = chunk.duplicate(); // do not move the caller's position
        while (!failed && in.hasRemaining()) {
            int start = in.position();
            int end = in.limit();
            int lf = indexOfLf(in, start, end);
            int take = (lf < 0 ? end : lf) - start;
            // One extra byte of slack: a CR that turns out to precede the LF does not count toward the cap.
            if ((long) carryLength + take > (long) maxLineBytes + 1) {
                out.add(tooLong((long) carryLength + take));
                break;
            }
            append(in, take);
            if (lf < 0) break;
            in.get(); // the LF
            emit(out);
        }
        return out;
    }

    /** The last line when the input does not end with LF. */
    List<Line> finish() {
        List<Line> out = new ArrayList<>(1);
        if (!failed && carryLength > 0) emit(out);
        return out;
    }

    private void emit(List<Line> out) {
        int len = carryLength;
        if (len > 0 && carry[len - 1] == '\r') len--;
        if (len > maxLineBytes) {
            out.add(tooLong(len));
        } else {
            if (len > 0) out.add(new Line(lineNumber, Arrays.copyOf(carry, len), null));
            lineNumber++;
            carryLength = 0;
            // Do not keep a huge buffer alive after one large line.
            if (carry.length > 1 << 20) carry = new byte[256];
        }
    }

    private Line tooLong(long seen) {
        failed = true;
        carry = null;
        return new Line(lineNumber, null, new ResourceLimitExceeded(LIMIT_NAME, maxLineBytes, seen,
                "line " + lineNumber + " of the NDJSON input is longer than " + maxLineBytes
                        + " bytes (counted up to where reading stopped); split the record or raise the line limit"));
    }

    private static int indexOfLf(ByteBuffer in, int from, int to) {
        if (in.hasArray()) {
            byte[] a = in.array();
            int base = in.arrayOffset();
            for (int i = from; i < to; i++) if (a[base + i] == '\n') return i;
            return -1;
        }
        for (int i = from; i < to; i++) if (in.get(i) == '\n') return i;
        return -1;
    }

    private void append(ByteBuffer in, int n) {
        if (carryLength + n > carry.length) {
            int want = Math.max(carryLength + n, Math.min(carry.length * 2, maxLineBytes + 1));
            carry = Arrays.copyOf(carry, want);
        }
        in.get(carry, carryLength, n);
        carryLength += n;
    }
}

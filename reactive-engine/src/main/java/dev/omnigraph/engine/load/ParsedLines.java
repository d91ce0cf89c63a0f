package dev.omnigraph.engine.load;

import dev.omnigraph.engine.load.LoadRecord.EdgeRecord;
import dev.omnigraph.engine.load.LoadRecord.NodeRecord;
import dev.omnigraph.storage.Ulid;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The records of one chunk's lines, parsed in order up to the first bad line, whose error is kept (not thrown)
 * so chunks parsed side by side still report it only after the records of every line before it. A line that
 * needs a fresh id (no key, none supplied) gets it when the chunk is emitted ({@link #emit}): chunks are emitted
 * one after another in input order, so minted ids follow line order across chunks parsed side by side, as they
 * do when one thread parses everything, and lines that never use one (keyed or with a supplied id) mint none.
 */
record ParsedLines(List<LoadRecord> records, RuntimeException error) {
    /** Stands for a fresh id until emission; compared by identity, so no parsed or derived id can equal it. */
    @SuppressWarnings("StringOperationCanBeSimplified")
    private static final String PENDING = new String("fresh id");

    static ParsedLines of(LineParser parser, List<LineSplitter.Line> lines) {
        List<LoadRecord> records = new ArrayList<>(lines.size());
        for (LineSplitter.Line line : lines) {
            if (line.error() != null) {
                return new ParsedLines(records, line.error());
            }
            try {
                records.add(parser.parse(line.number(), line.bytes(), () -> PENDING));
            } catch (RuntimeException bad) {
                return new ParsedLines(records, bad);
            }
        }
        return new ParsedLines(records, null);
    }

    /** The records, fresh ids minted now in line order, then the error, if any, which ends the stream. */
    Flux<LoadRecord> emit() {
        Flux<LoadRecord> all = Flux.defer(() -> Flux.fromIterable(minted()));
        return error == null ? all : all.concatWith(Mono.error(error));
    }

    private List<LoadRecord> minted() {
        List<LoadRecord> out = records;
        for (int i = 0; i < records.size(); i++) {
            LoadRecord record = records.get(i);
            if (record.id() != PENDING) continue; // identity: see PENDING
            if (out == records) out = new ArrayList<>(records);
            out.set(i, record instanceof EdgeRecord edge
                    ? new EdgeRecord(edge.line(), edge.edgeTypeName(), Ulid.next(), edge.src(), edge.dst(), edge.values())
                    : new NodeRecord(record.line(), record.typeName(), Ulid.next(), record.values()));
        }
        return out;
    }
}

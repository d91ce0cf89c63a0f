package dev.omnigraph.engine.load;

import dev.omnigraph.storage.Ulid;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The records of one chunk's lines, parsed in order up to the first bad line, whose error is kept (not thrown)
 * so chunks parsed side by side still report it only after the records of every line before it. Fresh ids are
 * minted before the chunk is handed to a parsing thread ({@link #freshIds}), one per line, so minted ids follow
 * line order across chunks parsed side by side, as they do when one thread parses everything.
 */
record ParsedLines(List<LoadRecord> records, RuntimeException error) {

    /** One fresh id per line, minted in input order (called for each chunk in turn, before it is parsed). */
    static String[] freshIds(List<LineSplitter.Line> lines) {
        String[] ids = new String[lines.size()];
        for (int i = 0; i < ids.length; i++) ids[i] = Ulid.next();
        return ids;
    }

    static ParsedLines of(LineParser parser, List<LineSplitter.Line> lines, String[] freshIds) {
        List<LoadRecord> records = new ArrayList<>(lines.size());
        for (int i = 0; i < lines.size(); i++) {
            LineSplitter.Line line = lines.get(i);
            String freshId = freshIds[i];
            if (line.error() != null) {
                return new ParsedLines(records, line.error());
            }
            try {
                records.add(parser.parse(line.number(), line.bytes(), () -> freshId));
            } catch (RuntimeException bad) {
                return new ParsedLines(records, bad);
            }
        }
        return new ParsedLines(records, null);
    }

    /** The records, then the error, if any, which ends the stream. */
    Flux<LoadRecord> emit() {
        Flux<LoadRecord> all = Flux.fromIterable(records);
        return error == null ? all : all.concatWith(Mono.error(error));
    }
}

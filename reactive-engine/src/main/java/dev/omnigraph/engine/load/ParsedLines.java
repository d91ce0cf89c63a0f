package dev.omnigraph.engine.load;

import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The records of one chunk's lines, parsed in order up to the first bad line, whose error is kept (not thrown)
 * so chunks parsed side by side still report it only after the records of every line before it.
 */
record ParsedLines(List<LoadRecord> records, RuntimeException error) {

    static ParsedLines of(LineParser parser, List<LineSplitter.Line> lines) {
        List<LoadRecord> records = new ArrayList<>(lines.size());
        for (LineSplitter.Line line : lines) {
            if (line.error() != null) {
                return new ParsedLines(records, line.error());
            }
            try {
                records.add(parser.parse(line.number(), line.bytes()));
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

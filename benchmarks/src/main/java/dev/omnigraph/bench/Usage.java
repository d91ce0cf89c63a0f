package dev.omnigraph.bench;

import dev.omnigraph.storage.StorageCallCounter;
import java.util.LinkedHashMap;
import java.util.Map;

/** A mark of the run's storage counters; {@link #chargeTo} adds everything since the mark to a row. */
record Usage(StorageCallCounter counter, Map<StorageCallCounter.Call, Long> counts, Map<StorageCallCounter.Call, Long> nanos) {

    static Usage mark(StorageCallCounter counter) {
        return new Usage(counter, counter.snapshot(), counter.nanosSnapshot());
    }

    /** Charges the calls and storage time since this mark to {@code row}, as {@code ops} operations. */
    void chargeTo(Series row, long ops) {
        Map<String, Long> calls = StorageCallCounter.delta(counts, counter.snapshot());
        Map<String, Long> time = new LinkedHashMap<>();
        Map<StorageCallCounter.Call, Long> after = counter.nanosSnapshot();
        for (StorageCallCounter.Call call : StorageCallCounter.Call.values()) {
            long spent = after.get(call) - nanos.get(call);
            if (spent != 0) {
                time.put(call.label(), spent);
            }
        }
        row.calls(calls, time, ops);
    }
}

package dev.omnigraph.engine.read;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The adjacency of one edge table at one version: node ids numbered densely, out-edges in CSR form (offsets by
 * source, targets) and in-edges in CSC form (offsets by destination, sources), each edge once per direction in
 * table order. Immutable once built, so any number of queries read it at once. Never persisted and never
 * authoritative: it only answers which ids a frontier id reaches, the same answer a scan of {@code src}/{@code dst}
 * of that version gives (see {@link TopologyCache}).
 */
final class Topology {
    /** Heap of one id entry: the string (header, array, bytes of a short ASCII id), a map node, a boxed index. */
    private static final long ID_ENTRY_BYTES = 120;

    private final String[] ids;
    private final Map<String, Integer> index;
    private final int[] outOffsets;
    private final int[] outTargets;
    private final int[] inOffsets;
    private final int[] inSources;
    private final long estimatedBytes;

    private Topology(String[] ids, Map<String, Integer> index, int[] outOffsets, int[] outTargets, int[] inOffsets,
                     int[] inSources) {
        this.ids = ids;
        this.index = index;
        this.outOffsets = outOffsets;
        this.outTargets = outTargets;
        this.inOffsets = inOffsets;
        this.inSources = inSources;
        long idChars = 0;
        for (String id : ids) idChars += id.length();
        this.estimatedBytes = ids.length * ID_ENTRY_BYTES + idChars
                + 4L * (outOffsets.length + outTargets.length + inOffsets.length + inSources.length);
    }

    int edgeCount() {
        return outTargets.length;
    }

    int nodeCount() {
        return ids.length;
    }

    /** What this topology holds on the heap, estimated (it errs high for short ids). */
    long estimatedBytes() {
        return estimatedBytes;
    }

    /** The ids {@code id} reaches: destinations of its out-edges, then (undirected) sources of its in-edges. */
    List<String> neighbours(String id, Expander.Probe probe) {
        Integer i = index.get(id);
        if (i == null) return List.of();
        List<String> out = new ArrayList<>();
        if (probe != Expander.Probe.IN)
            for (int k = outOffsets[i]; k < outOffsets[i + 1]; k++) out.add(ids[outTargets[k]]);
        if (probe != Expander.Probe.OUT)
            for (int k = inOffsets[i]; k < inOffsets[i + 1]; k++) out.add(ids[inSources[k]]);
        return out;
    }

    /** A build that passed its byte limit, abandoned so the traversal scans instead. */
    static final class TooLarge extends RuntimeException {
        TooLarge() {
            super(null, null, false, false);
        }
    }

    /**
     * Collects edges in table order, then lays them out by source and by destination. A builder that
     * {@link #extending extends} a topology collects only the edges of the rows appended since, and lays out each
     * node's neighbours as the base's followed by the new ones: the order a full build gives when the appended
     * fragments are scanned after the others.
     */
    static final class Builder {
        private final long limitBytes;
        private final Topology base;
        private final Map<String, Integer> index;
        private final List<String> ids;
        private int[] src = new int[1024];
        private int[] dst = new int[1024];
        private int edges;
        /** The fragments whose rows an extending builder adds (null: every row of the table). */
        private List<Integer> fragments;

        /** A builder that gives up ({@link TooLarge}) once its estimate passes {@code limitBytes}. */
        Builder(long limitBytes) {
            this(limitBytes, null);
        }

        private Builder(long limitBytes, Topology base) {
            this.limitBytes = limitBytes;
            this.base = base;
            this.index = base == null ? new HashMap<>() : new HashMap<>(base.index);
            this.ids = base == null ? new ArrayList<>() : new ArrayList<>(Arrays.asList(base.ids));
        }

        /** A builder of {@code base} plus the edges {@link #add}ed (rows appended to its table since); base is kept as is. */
        static Builder extending(Topology base, long limitBytes) {
            return new Builder(limitBytes, base);
        }

        /** Scopes an extending builder's rows to {@code ids}, the fragments added since its base. */
        Builder onFragments(List<Integer> ids) {
            this.fragments = List.copyOf(ids);
            return this;
        }

        List<Integer> fragments() {
            return fragments;
        }

        void add(String from, String to) {
            long baseEdges = base == null ? 0 : base.edgeCount();
            if ((edges & 4095) == 0 && (long) ids.size() * ID_ENTRY_BYTES + 16L * (edges + baseEdges) > limitBytes)
                throw new TooLarge();
            if (edges == src.length) {
                src = Arrays.copyOf(src, edges * 2);
                dst = Arrays.copyOf(dst, edges * 2);
            }
            src[edges] = number(from);
            dst[edges] = number(to);
            edges++;
        }

        private int number(String id) {
            Integer known = index.get(id);
            if (known != null) return known;
            int next = ids.size();
            index.put(id, next);
            ids.add(id);
            return next;
        }

        Topology build() {
            if (base != null) return merged();
            int n = ids.size();
            int[] outOffsets = offsets(src, n);
            int[] inOffsets = offsets(dst, n);
            int[] outTargets = new int[edges];
            int[] inSources = new int[edges];
            int[] outFill = Arrays.copyOf(outOffsets, n);
            int[] inFill = Arrays.copyOf(inOffsets, n);
            for (int e = 0; e < edges; e++) {
                outTargets[outFill[src[e]]++] = dst[e];
                inSources[inFill[dst[e]]++] = src[e];
            }
            return new Topology(ids.toArray(String[]::new), index, outOffsets, outTargets, inOffsets, inSources);
        }

        /** The base's lists with the added edges after them, node by node (new nodes have only added edges). */
        private Topology merged() {
            int n = ids.size();
            int[][] out = mergeSide(base.outOffsets, base.outTargets, src, dst, n);
            int[][] in = mergeSide(base.inOffsets, base.inSources, dst, src, n);
            return new Topology(ids.toArray(String[]::new), index, out[0], out[1], in[0], in[1]);
        }

        /** Offsets and entries of one side: for node i, the base's entries of i, then {@code to[e]} of added edges from i. */
        private int[][] mergeSide(int[] baseOffsets, int[] baseEntries, int[] from, int[] to, int n) {
            int baseNodes = baseOffsets.length - 1;
            int[] o = new int[n + 1];
            for (int i = 0; i < baseNodes; i++) o[i + 1] = baseOffsets[i + 1] - baseOffsets[i];
            for (int e = 0; e < edges; e++) o[from[e] + 1]++;
            for (int i = 0; i < n; i++) o[i + 1] += o[i];
            int[] entries = new int[baseEntries.length + edges];
            int[] fill = Arrays.copyOf(o, n);
            for (int i = 0; i < baseNodes; i++) {
                int len = baseOffsets[i + 1] - baseOffsets[i];
                System.arraycopy(baseEntries, baseOffsets[i], entries, fill[i], len);
                fill[i] += len;
            }
            for (int e = 0; e < edges; e++) entries[fill[from[e]]++] = to[e];
            return new int[][] {o, entries};
        }

        /** Prefix sums of the degree of each node over {@code ends}: node i's range is [o[i], o[i+1]). */
        private int[] offsets(int[] ends, int n) {
            int[] o = new int[n + 1];
            for (int e = 0; e < edges; e++) o[ends[e] + 1]++;
            for (int i = 0; i < n; i++) o[i + 1] += o[i];
            return o;
        }
    }
}

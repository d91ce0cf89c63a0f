package dev.omnigraph.bench;

import java.util.List;

/** The scenario catalogue, in the order a full run executes them. */
public final class Scenarios {
    public static final List<String> NAMES = List.of("single-insert", "single-insert-neo4j", "point-read",
            "concurrent-writers", "bulk-load", "recovery-sweep", "history-depth", "branches", "branch-merge", "point-read-indexed", "optimize",
            "nearest-indexed", "bm25-search", "s3-roots", "maintained-history", "file-format", "blob-range", "change-cost",
            "single-insert-metrics");
    /** Scenarios run only when named (too slow for a full run here). */
    public static final List<String> ON_DEMAND = List.of("scale-reads", "authz-cost");

    private Scenarios() {
    }

    public static Scenario create(String name) {
        return switch (name) {
            case "single-insert" -> new SingleInsert();
            case "single-insert-neo4j" -> new SingleInsertNeo4j();
            case "point-read" -> new PointRead();
            case "concurrent-writers" -> new ConcurrentWriters();
            case "bulk-load" -> new BulkLoad();
            case "recovery-sweep" -> new RecoverySweep();
            case "history-depth" -> new HistoryDepth();
            case "branches" -> new Branches();
            case "branch-merge" -> new BranchMergeBench();
            case "point-read-indexed" -> new IndexedPointRead();
            case "optimize" -> new OptimizeScenario();
            case "nearest-indexed" -> new NearestBench();
            case "bm25-search" -> new Bm25Bench();
            case "s3-roots" -> new S3Roots();
            case "maintained-history" -> new MaintainedHistory();
            case "file-format" -> new FileFormatBench();
            case "blob-range" -> new BlobRange();
            case "change-cost" -> new ChangeCost();
            case "single-insert-metrics" -> new SingleInsertMetrics();
            case "scale-reads" -> new ScaleReads();
            case "authz-cost" -> new AuthzCost();
            default -> throw new IllegalArgumentException("unknown scenario " + name);
        };
    }
}

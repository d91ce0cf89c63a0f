package dev.omnigraph.storage;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every failpoint the engine registers, grouped by writer, so crash tests (inside and outside the suite) can
 * iterate all of them. {@code <n>} stands for the 1-based index of a table commit or restore within one write.
 */
public final class FailpointCatalog {
    /** Pipeline steps shared by every direct-publish writer; the full name is {@code <writer>.<step>}. */
    public static final String AFTER_PREPARE = "after_prepare";
    public static final String AFTER_GATES = "after_gates";
    public static final String AFTER_ARM = "after_arm";
    public static final String AFTER_COMMIT = "after_commit:";
    public static final String AFTER_CONFIRM = "after_confirm";
    public static final String AFTER_PUBLISH = "after_publish";
    public static final String BEFORE_SIDECAR_DELETE = "before_sidecar_delete";

    /**
     * Hit after the first-touch forks of a write on a graph branch exist and its changes are staged on them
     * (between {@link #AFTER_ARM} and the first commit); only writes that fork pass it.
     */
    public static final String AFTER_FORK = "after_fork";

    /**
     * A merge whose table delta commits as a chain of chunks: {@code after_chunk:<n>.<i>} is hit after chunk
     * {@code i} of the n-th table landed and before the next is staged (the last chunk hits {@link #AFTER_COMMIT}).
     */
    public static final String AFTER_CHUNK = "after_chunk:";

    /**
     * Hit after every table commit landed, just before the manifest commit. It runs beside the confirmation, so a
     * crash here leaves either recovery outcome; tests fail the publish here (the confirmation still lands).
     */
    public static final String BEFORE_MANIFEST_COMMIT = "before_manifest_commit";

    public static final List<String> PIPELINE_STEPS = List.of(AFTER_PREPARE, AFTER_GATES, AFTER_ARM,
            AFTER_COMMIT + "<n>", AFTER_CONFIRM, AFTER_PUBLISH, BEFORE_SIDECAR_DELETE);
    /**
     * After the whole write ended, successfully or not, with its gates released and staged work discarded, even
     * when its subscriber cancelled: where a test parks to know a write it can no longer observe is over.
     */
    public static final String AFTER_ATTEMPT = "after_attempt";

    /**
     * Recovery's own I/O, hit just before the call: every sidecar write (the arm, the confirm and recovery's plan
     * rewrite; {@code @n} picks one), every sidecar delete and list, and every audit append.
     */
    public static final String SIDECAR_WRITE = "recovery.sidecar_write";
    public static final String SIDECAR_DELETE = "recovery.sidecar_delete";
    public static final String SIDECAR_LIST = "recovery.sidecar_list";
    public static final String AUDIT_RECORD = "recovery.audit_record";

    public static final List<String> RECOVERY_POINTS = List.of("recovery.before_plan_write", "recovery.after_plan_write",
            "recovery.after_restore:<n>", "recovery.after_rollback_publish", "recovery.after_forward_publish",
            AUDIT_RECORD, "recovery.after_audit", SIDECAR_WRITE, SIDECAR_DELETE, SIDECAR_LIST);

    /**
     * The bulk open-time sweep, in order: every sidecar classified; the roll-forward of one branch published;
     * every participant's restore plan written; the n-th restore committed; every restore committed; every
     * rollback publish done; the one audit append done; the n-th sidecar deleted.
     */
    public static final String SWEEP_AFTER_CLASSIFY = "recovery.sweep.after_classify";
    public static final String SWEEP_AFTER_FORWARD_PUBLISH = "recovery.sweep.after_forward_publish";
    public static final String SWEEP_AFTER_PLANS = "recovery.sweep.after_plans";
    public static final String SWEEP_AFTER_RESTORE = "recovery.sweep.after_restore:";
    public static final String SWEEP_AFTER_RESTORES = "recovery.sweep.after_restores";
    public static final String SWEEP_AFTER_PUBLISH = "recovery.sweep.after_publish";
    public static final String SWEEP_AFTER_AUDIT = "recovery.sweep.after_audit";
    public static final String SWEEP_AFTER_DELETE = "recovery.sweep.after_delete:";

    public static final List<String> SWEEP_POINTS = List.of(SWEEP_AFTER_CLASSIFY, SWEEP_AFTER_FORWARD_PUBLISH,
            SWEEP_AFTER_PLANS, SWEEP_AFTER_RESTORE + "<n>", SWEEP_AFTER_RESTORES, SWEEP_AFTER_PUBLISH, SWEEP_AFTER_AUDIT,
            SWEEP_AFTER_DELETE + "<n>");

    /** {@code init}, in order: claim taken, every table created, schema files written, claim about to go. */
    public static final String INIT_AFTER_CLAIM = "init.after_claim";
    public static final String INIT_AFTER_TABLES = "init.after_tables";
    public static final String INIT_AFTER_SCHEMA_FILES = "init.after_schema_files";
    public static final String INIT_BEFORE_CLAIM_DELETE = "init.before_claim_delete";

    public static final List<String> INIT_POINTS = List.of(INIT_AFTER_CLAIM, INIT_AFTER_TABLES, INIT_AFTER_SCHEMA_FILES,
            INIT_BEFORE_CLAIM_DELETE);

    /** Branch controls: create around its one native create; delete after its authority is gone, before reclaiming forks. */
    public static final String BRANCH_BEFORE_CREATE = "branch.before_create";
    public static final String BRANCH_AFTER_CREATE = "branch.after_create";
    public static final String BRANCH_AFTER_DELETE_AUTHORITY = "branch.after_delete_authority";

    public static final List<String> BRANCH_POINTS = List.of(BRANCH_BEFORE_CREATE, BRANCH_AFTER_CREATE,
            BRANCH_AFTER_DELETE_AUTHORITY);

    /**
     * {@code schema apply}, in order: staged contract written, sidecar armed, rewrites/creates committed, sidecar
     * confirmed, published, before and after the contract files are promoted (also hit by its recovery).
     */
    public static final List<String> SCHEMA_APPLY_POINTS = List.of("schema_apply.after_staging",
            "schema_apply.after_arm", "schema_apply.after_rewrites", "schema_apply.after_confirm",
            "schema_apply.after_publish", "schema_apply.before_contract_swap", "schema_apply.after_contract_swap");

    /**
     * A schema apply's recovery rolling back: its restore plan durable in the sidecar, then after the n-th restore
     * commit (1-based); a recovery killed at either recognises its landed restores on re-entry.
     */
    public static final List<String> SCHEMA_RECOVERY_POINTS = List.of("recovery.schema.after_plan",
            "recovery.schema.after_restore:<n>");

    /** {@code cleanup}, per dataset n (1-based, in location order): its files deleted, then its version manifests. */
    public static final String CLEANUP_AFTER_FILES = "cleanup.after_files:";
    public static final String CLEANUP_AFTER_MANIFESTS = "cleanup.after_manifests:";
    public static final List<String> CLEANUP_POINTS = List.of(CLEANUP_AFTER_FILES + "<n>", CLEANUP_AFTER_MANIFESTS + "<n>");

    /**
     * {@code index ensure}, in order: gates held and plan rechecked, sidecar armed, first-touch forks created,
     * the n-th index build committed (counted over the whole ensure), sidecar confirmed, published, before the
     * sidecar is deleted.
     */
    public static final String ENSURE_INDICES = "ensure_indices";
    public static final List<String> ENSURE_INDICES_POINTS = List.of(AFTER_GATES, AFTER_ARM, AFTER_FORK,
            AFTER_COMMIT + "<n>", AFTER_CONFIRM, AFTER_PUBLISH, BEFORE_SIDECAR_DELETE).stream()
            .map(step -> ENSURE_INDICES + "." + step).toList();

    /** {@code optimize}: planned, armed, after each table's compaction, published, before the sidecar delete. */
    public static final List<String> OPTIMIZE_POINTS = List.of("optimize.after_plan", "optimize.after_arm",
            "optimize.after_compact:<n>", "optimize.after_index:<n>", "optimize.after_publish", "optimize.before_sidecar_delete");

    private FailpointCatalog() {
    }

    /** Writer → its failpoint names, in pipeline order. */
    public static Map<String, List<String>> byWriter() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String writer : List.of("mutation", "load", "branch_merge")) {
            List<String> points = new java.util.ArrayList<>(PIPELINE_STEPS.stream().map(step -> writer + "." + step).toList());
            points.add(writer + "." + AFTER_FORK);
            // Between the transactions of a chain: a merge's chunks, or the index build after a write's rows.
            points.add(writer + "." + AFTER_CHUNK + "<n>.<i>");
            points.add(writer + "." + BEFORE_MANIFEST_COMMIT);
            points.add(writer + "." + AFTER_ATTEMPT);
            out.put(writer, List.copyOf(points));
        }
        out.put("recovery", RECOVERY_POINTS);
        out.put("sweep", SWEEP_POINTS);
        out.put("init", INIT_POINTS);
        out.put("branch", BRANCH_POINTS);

        out.put("schema_apply", SCHEMA_APPLY_POINTS);
        out.put("schema_recovery", SCHEMA_RECOVERY_POINTS);
        out.put("cleanup", CLEANUP_POINTS);

        out.put(ENSURE_INDICES, ENSURE_INDICES_POINTS);
        out.put("optimize", OPTIMIZE_POINTS);
        return out;
    }

    /** The concrete name of a pipeline step of {@code writer}. */
    public static String point(String writer, String step) {
        return writer + "." + step;
    }
}

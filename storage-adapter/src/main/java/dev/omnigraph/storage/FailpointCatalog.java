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

    public static final List<String> PIPELINE_STEPS = List.of(AFTER_PREPARE, AFTER_GATES, AFTER_ARM,
            AFTER_COMMIT + "<n>", AFTER_CONFIRM, AFTER_PUBLISH, BEFORE_SIDECAR_DELETE);

    public static final List<String> RECOVERY_POINTS = List.of("recovery.before_plan_write", "recovery.after_plan_write",
            "recovery.after_restore:<n>", "recovery.after_rollback_publish", "recovery.after_forward_publish",
            "recovery.after_audit");

    private FailpointCatalog() {
    }

    /** Writer → its failpoint names, in pipeline order. */
    public static Map<String, List<String>> byWriter() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String writer : List.of("mutation", "load")) {
            out.put(writer, PIPELINE_STEPS.stream().map(step -> writer + "." + step).toList());
        }
        out.put("recovery", RECOVERY_POINTS);
        return out;
    }

    /** The concrete name of a pipeline step of {@code writer}. */
    public static String point(String writer, String step) {
        return writer + "." + step;
    }
}

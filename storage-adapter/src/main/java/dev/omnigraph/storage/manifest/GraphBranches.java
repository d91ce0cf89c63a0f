package dev.omnigraph.storage.manifest;

import java.util.Optional;

/** Graph branch names ↔ Lance refs of {@code __manifest}: "main" is Lance's main ref, others are Lance branches. */
public final class GraphBranches {
    public static final String MAIN = "main";

    private GraphBranches() {
    }

    public static Optional<String> lanceRef(String graphBranch) {
        return MAIN.equals(graphBranch) ? Optional.empty() : Optional.of(graphBranch);
    }

    public static String graphBranch(Optional<String> lanceRef) {
        return lanceRef.orElse(MAIN);
    }
}

package dev.omnigraph.storage;

import java.util.Objects;
import java.util.Optional;

/**
 * A Lance dataset and the Lance branch ref to read or write on it. {@code path} is the dataset's root URI; an
 * empty branch means Lance's main. Data of a branch lives under {@code <path>/tree/<branch>}.
 */
public record TableRef(String path, Optional<String> branch) {
    public TableRef {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(branch, "branch");
        branch.ifPresent(LanceBranchNames::requireValid);
    }

    public static TableRef main(String path) {
        return new TableRef(path, Optional.empty());
    }

    public static TableRef onBranch(String path, String branch) {
        return new TableRef(path, Optional.of(branch));
    }

    /** The URI Lance must be given to open, stage on, or commit to this ref. */
    public String uri() {
        return branch.map(name -> path + "/tree/" + name).orElse(path);
    }

    @Override
    public String toString() {
        return branch.map(name -> path + "@" + name).orElse(path);
    }
}

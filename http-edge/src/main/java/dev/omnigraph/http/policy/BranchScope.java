package dev.omnigraph.http.policy;

import java.util.Locale;
import java.util.Optional;

/** Which branches a rule covers: all, only the bundle's protected branches, or only the others. */
public enum BranchScope {
    ANY, PROTECTED, UNPROTECTED;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<BranchScope> parse(String text) {
        for (BranchScope scope : values()) {
            if (scope.wireName().equals(text)) return Optional.of(scope);
        }
        return Optional.empty();
    }
}

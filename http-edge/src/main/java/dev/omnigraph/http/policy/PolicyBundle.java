package dev.omnigraph.http.policy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A validated policy bundle: actor groups, protected branches, allow rules and raw Cedar text for what the rules
 * cannot say (a {@code forbid}, a condition on a branch name). Built only by {@link BundleReader}, which refuses
 * anything inconsistent, so a bundle in hand always compiles.
 *
 * @param groups            group name to its actor ids, in file order
 * @param protectedBranches branch names {@code protected} scopes refer to
 * @param rules             allow rules, in file order
 * @param cedar             raw Cedar policies (empty when the bundle has none)
 * @param cedarLine         the line the Cedar text starts at, for its errors
 * @param origin            where the bundle came from, for messages
 */
public record PolicyBundle(Map<String, List<String>> groups, Set<String> protectedBranches, List<Rule> rules,
                           String cedar, int cedarLine, String origin) {

    /**
     * One allow rule: the members of {@code group} may do {@code actions}, on branches in {@code branchScope} or
     * into branches in {@code targetBranchScope} when set. {@code line} is where the rule starts in the file.
     */
    public record Rule(String id, String group, List<PolicyAction> actions, Optional<BranchScope> branchScope,
                       Optional<BranchScope> targetBranchScope, int line) {
    }

    /** The number of distinct actors the groups name. */
    public long actorCount() {
        return groups.values().stream().flatMap(List::stream).distinct().count();
    }
}

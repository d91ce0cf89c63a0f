package dev.omnigraph.engine.merge;

import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.manifest.GraphCommit;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The merge base: of the commits reachable from both heads (following both parents of every commit), the one
 * with the smallest sum of distances; ties prefer the larger manifest version. Pure: works on the union of the
 * commits both branches see.
 */
public final class MergeBase {
    private MergeBase() {
    }

    public static GraphCommit of(Collection<GraphCommit> commits, String sourceHead, String targetHead) {
        Map<String, GraphCommit> byId = new HashMap<>();
        commits.forEach(commit -> byId.put(commit.id(), commit));
        Map<String, Integer> fromSource = distances(byId, sourceHead);
        Map<String, Integer> fromTarget = distances(byId, targetHead);
        GraphCommit best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (Map.Entry<String, Integer> entry : fromSource.entrySet()) {
            Integer other = fromTarget.get(entry.getKey());
            GraphCommit commit = byId.get(entry.getKey());
            if (other == null || commit == null) {
                continue;
            }
            int distance = entry.getValue() + other;
            if (distance < bestDistance || (distance == bestDistance && commit.manifestVersion() > best.manifestVersion())) {
                best = commit;
                bestDistance = distance;
            }
        }
        return Optional.ofNullable(best).orElseThrow(() -> new BadRequest("the heads " + sourceHead + " and "
                + targetHead + " have no common ancestor: nothing to merge against"));
    }

    /** Breadth-first distances from {@code head} over every parent (first and merged). */
    private static Map<String, Integer> distances(Map<String, GraphCommit> byId, String head) {
        Map<String, Integer> distance = new HashMap<>();
        ArrayDeque<String> queue = new ArrayDeque<>();
        distance.put(head, 0);
        queue.add(head);
        while (!queue.isEmpty()) {
            String id = queue.poll();
            GraphCommit commit = byId.get(id);
            if (commit == null) {
                continue;
            }
            for (String parent : commit.parentIds()) {
                if (!distance.containsKey(parent)) {
                    distance.put(parent, distance.get(id) + 1);
                    queue.add(parent);
                }
            }
        }
        return distance;
    }
}

package dev.omnigraph.http.wire;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.merge.MergeResult;
import java.util.Optional;

/** The JSON of a branch merge, shared by {@code POST /branches/merge} and {@code branch merge --json}. */
public final class MergeShapes {
    private MergeShapes() {
    }

    /**
     * {@code {source, target, outcome, actor_id, commit, branch_deleted?, branch_delete_error?}}; {@code commit} is
     * the merge commit on the target, null when already up to date.
     */
    public static ObjectNode result(MergeResult result, Optional<String> actor) {
        ObjectNode out = Json.object();
        out.put("source", result.source());
        out.put("target", result.target());
        out.put("outcome", result.outcome().wireName());
        out.put("actor_id", actor.orElse(null));
        if (result.commit().isPresent()) {
            out.set("commit", Shapes.commit(result.commit().get()));
        } else {
            out.putNull("commit");
        }
        result.branchDeleted().ifPresent(deleted -> out.put("branch_deleted", deleted));
        result.branchDeleteError().ifPresent(error -> out.put("branch_delete_error", error));
        return out;
    }
}

package dev.omnigraph.http.wire;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.diff.ChangeCause;
import dev.omnigraph.engine.diff.CommitChanges;
import dev.omnigraph.engine.diff.EntityChange;
import dev.omnigraph.engine.diff.FeedPage;
import java.util.List;

/**
 * The change surfaces' JSON, in the reference's field names: {@code CommitChangesOutput} ({@code cause, changes,
 * next_page_token?}), {@code ChangeFeedOutput} ({@code blocks, next_page_token?, cursor?, caught_up?}), each change
 * {@code {kind, type:{id,name}, id, op, before?, after?}} with images {@code {properties, endpoints?:{from,to}}}.
 * Absent optionals are omitted, as the reference serialises them.
 */
public final class ChangeShapes {
    private ChangeShapes() {
    }

    public static ObjectNode commitChanges(CommitChanges page) {
        ObjectNode out = Json.object();
        out.set("cause", cause(page.cause()));
        out.set("changes", changes(page.changes()));
        page.nextPageToken().ifPresent(token -> out.put("next_page_token", token));
        return out;
    }

    public static ObjectNode feed(FeedPage page) {
        ObjectNode out = Json.object();
        ArrayNode blocks = out.putArray("blocks");
        for (FeedPage.Block block : page.blocks()) {
            ObjectNode b = blocks.addObject();
            b.set("cause", cause(block.cause()));
            b.set("changes", changes(block.changes()));
        }
        page.nextPageToken().ifPresent(token -> out.put("next_page_token", token));
        page.cursor().ifPresent(cursor -> out.put("cursor", cursor));
        page.caughtUp().ifPresent(caughtUp -> out.put("caught_up", caughtUp));
        return out;
    }

    static ObjectNode cause(ChangeCause cause) {
        ObjectNode out = Json.object();
        out.put("graph_commit_id", cause.graphCommitId());
        cause.parentCommitId().ifPresent(id -> out.put("parent_commit_id", id));
        cause.mergedParentCommitId().ifPresent(id -> out.put("merged_parent_commit_id", id));
        out.put("authored_branch", cause.authoredBranch());
        cause.actorId().ifPresent(actor -> out.put("actor_id", actor));
        out.put("authored_at", cause.authoredAt());
        return out;
    }

    private static ArrayNode changes(List<EntityChange> changes) {
        ArrayNode out = Json.array();
        for (EntityChange change : changes) {
            ObjectNode c = out.addObject();
            c.put("kind", change.kind());
            c.putObject("type").put("id", change.typeId()).put("name", change.typeName());
            c.put("id", change.id());
            c.put("op", change.op().wireName());
            change.before().ifPresent(image -> c.set("before", image(image)));
            change.after().ifPresent(image -> c.set("after", image(image)));
        }
        return out;
    }

    private static ObjectNode image(EntityChange.Image image) {
        ObjectNode out = Json.object();
        ObjectNode properties = out.putObject("properties");
        image.properties().forEach((name, value) -> properties.set(name, Json.value(value)));
        image.endpoints().ifPresent(e -> out.putObject("endpoints").put("from", e.from()).put("to", e.to()));
        return out;
    }
}

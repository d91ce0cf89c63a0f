package dev.omnigraph.http.cli;

import dev.omnigraph.engine.OmnigraphBuilder;
import dev.omnigraph.http.policy.BundleReader;
import dev.omnigraph.http.policy.CedarPolicy;
import dev.omnigraph.http.policy.PolicyAuthorizer;
import dev.omnigraph.storage.root.GraphRoot;
import java.nio.file.Path;

/**
 * The CLI's {@code --policy <bundle>}: graphs the run opens ask the bundle before every write, as the actor given
 * with {@code --as}, so a direct write is checked like a served one. The graph id the bundle sees is the root's
 * last path segment (as {@code serve} names a single graph).
 */
final class CliPolicy {
    private CliPolicy() {
    }

    static OmnigraphBuilder apply(OmnigraphBuilder builder, Path bundle, GraphRoot root) {
        if (bundle == null) return builder;
        CedarPolicy policy = CedarPolicy.compile(BundleReader.read(bundle));
        return builder.authorizer(PolicyAuthorizer.of(policy, graphId(root)));
    }

    static String graphId(GraphRoot root) {
        String text = root.displayUri().replaceAll("/+$", "");
        String name = text.substring(text.lastIndexOf('/') + 1);
        return name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,63}") ? name : "default";
    }
}

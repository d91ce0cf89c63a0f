package dev.omnigraph.engine.query;

import java.util.List;
import java.util.Optional;

/**
 * One parsed {@code query name(…) @description(…) { … }} declaration, not yet checked against a catalog.
 * {@code description} and {@code instruction} are null when absent.
 */
public record QueryDecl(String name, List<ParamDecl> params, String description, String instruction, Ast.Body body,
                        Ast.Pos pos) {
    public QueryDecl {
        params = List.copyOf(params);
    }

    public Optional<ParamDecl> param(String paramName) {
        return params.stream().filter(p -> p.name().equals(paramName)).findFirst();
    }

    public boolean isMutation() {
        return body instanceof Ast.MutationBody;
    }
}

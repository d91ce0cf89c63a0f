package dev.omnigraph.engine.query;

import java.util.List;
import java.util.Map;

/** A query checked against one catalog: either a {@link ReadPlan} or a {@link MutationPlan}. */
public sealed interface CompiledQuery permits ReadPlan, MutationPlan {

    String name();

    /** The declared parameters, in declaration order. */
    List<ParamDecl> params();

    /** Binds caller values to this query's parameters; see {@link ParamBinder#bind}. */
    default BoundParams bind(Map<String, Object> raw) {
        return ParamBinder.bind(params(), raw);
    }
}

package dev.omnigraph.http.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.omnigraph.engine.query.QueryCompiler;
import dev.omnigraph.engine.query.QueryDecl;
import dev.omnigraph.engine.query.QueryFile;
import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.CompiledSchema;
import dev.omnigraph.engine.schema.SchemaCompiler;
import dev.omnigraph.engine.schema.SchemaIr;
import dev.omnigraph.http.wire.ErrorBodies;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.error.OmnigraphException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code omnigraph check --schema s.pg [--query q.gq]}: compiles the schema and type-checks every query of the
 * file against it, without any graph. Reports every failing query (not just the first) and exits 1 on any error.
 */
@Command(name = "check", aliases = "lint", description = "Compile a schema and type-check queries, without a graph.")
final class CheckCommand implements Callable<Integer> {
    @ParentCommand
    OmnigraphCli cli;

    @Option(names = "--schema", required = true, paramLabel = "<pg>", description = "The .pg schema.")
    Path schema;

    @Option(names = "--query", paramLabel = "<gq>", description = "A .gq file whose queries are checked.")
    Path query;

    @Option(names = "--json", description = "Print {ok, schema:{types}, queries:[{name, ok, error?}]} as JSON.")
    boolean json;

    @Override
    public Integer call() {
        CompiledSchema compiled = SchemaCompiler.compile(Cli.read(schema, "schema"));
        Catalog catalog = Catalog.build(SchemaIr.initial(compiled), compiled);
        ObjectNode report = Json.MAPPER.createObjectNode();
        report.put("schema", schema.toString());
        report.put("tables", catalog.tables().size());
        ArrayNode queries = report.putArray("queries");
        boolean ok = true;
        if (query != null) {
            QueryFile file = QueryCompiler.parse(Cli.read(query, "query"));
            for (QueryDecl decl : file.queries()) {
                ObjectNode entry = queries.addObject().put("name", decl.name());
                try {
                    QueryCompiler.check(decl, catalog);
                    entry.put("ok", true).put("mutation", decl.isMutation());
                    if (!json) cli.out.println("ok     " + decl.name() + (decl.isMutation() ? " (mutation)" : ""));
                } catch (OmnigraphException error) {
                    ok = false;
                    entry.put("ok", false).set("error", ErrorBodies.of(error).body());
                    if (!json) cli.out.println("error  " + decl.name() + ": " + error.getMessage());
                }
            }
        }
        report.put("ok", ok);
        if (json) {
            cli.out.println(Json.text(report));
        } else {
            cli.out.println((ok ? "ok: " : "failed: ") + "schema with " + catalog.tables().size() + " table(s)"
                    + (query == null ? "" : ", " + queries.size() + " quer" + (queries.size() == 1 ? "y" : "ies")));
        }
        return ok ? OmnigraphCli.OK : OmnigraphCli.ERROR;
    }
}

package dev.omnigraph.http.cli;

import dev.omnigraph.engine.SchemaOperations;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.ReadTarget;
import dev.omnigraph.engine.evolve.PlanStep;
import dev.omnigraph.engine.evolve.SchemaApplyResult;
import dev.omnigraph.engine.evolve.SchemaPlan;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.http.wire.SchemaShapes;
import java.nio.file.Path;
import dev.omnigraph.storage.root.GraphRoot;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code omnigraph schema plan|apply|show}: schema evolution of a graph root. */
@Command(name = "schema", description = "Show, plan or apply a change of the graph's .pg schema.",
        subcommands = {SchemaCommand.Plan.class, SchemaCommand.Apply.class, SchemaCommand.Show.class})
final class SchemaCommand extends CommandGroup {
    /** {@code schema show <root>}: the accepted {@code .pg} source. */
    @Command(name = "show", description = "Print the graph's accepted .pg schema.")
    static final class Show implements Callable<Integer> {
        @ParentCommand
        SchemaCommand parent;

        @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
        GraphRoot root;

        @Option(names = "--json", description = "Print {schema_source}.")
        boolean json;

        @Override
        public Integer call() {
            Omnigraph graph = Cli.open(parent.cli, root, OpenMode.READ_ONLY);
            parent.cli.out.print(json ? Json.text(Json.object().put("schema_source", graph.schema().source())) + "\n"
                    : graph.schema().source());
            return OmnigraphCli.OK;
        }
    }

    /** {@code schema plan --schema new.pg <root>}: the ordered steps; changes nothing. */
    @Command(name = "plan", description = "Print the steps that would turn the accepted schema into --schema; changes nothing.")
    static final class Plan implements Callable<Integer> {
        @ParentCommand
        SchemaCommand parent;

        @Mixin
        NewSchema target;

        @Option(names = "--json", description = "Print {steps:[{kind, target, detail, effect}], step_count}.")
        boolean json;

        @Override
        public Integer call() {
            String source = Cli.read(target.schema, "schema");
            Omnigraph graph = Cli.open(parent.cli, target.root, OpenMode.READ_ONLY);
            SchemaPlan plan = graph.schema().plan(source).block();
            if (json) {
                var out = Json.object().put("step_count", plan.steps().size()).put("loses_data", plan.losesData());
                out.set("steps", SchemaShapes.steps(plan.steps()));
                parent.cli.out.println(Json.text(out));
            } else {
                print(parent.cli, plan.steps());
            }
            return OmnigraphCli.OK;
        }
    }

    /** {@code schema apply --schema new.pg [--allow-data-loss] <root>}. */
    @Command(name = "apply", description = "Apply --schema to the graph as one commit.")
    static final class Apply implements Callable<Integer> {
        @ParentCommand
        SchemaCommand parent;

        @Mixin
        NewSchema target;

        @Option(names = "--allow-data-loss", description = "Allow steps that drop types or properties holding data.")
        boolean allowDataLoss;

        @Option(names = "--as", paramLabel = "<actor>", description = "Actor recorded on the commit.")
        String actor;

        @Option(names = "--json", description = "Print {uri, supported, applied, step_count, graph_manifest_version, steps}.")
        boolean json;

        @Override
        public Integer call() {
            String source = Cli.read(target.schema, "schema");
            Omnigraph graph = Cli.open(parent.cli, target.root, OpenMode.READ_WRITE);
            SchemaApplyResult result = graph.schema()
                    .apply(new SchemaOperations.Apply(source, allowDataLoss, Optional.ofNullable(actor))).block();
            long manifestVersion = graph.snapshot(ReadTarget.main()).block().manifestVersion();
            if (json) {
                parent.cli.out.println(Json.text(SchemaShapes.result(graph.location().uri(), result.applied(),
                        manifestVersion, result.steps(), result.commit().map(c -> c.id()))));
            } else if (!result.applied()) {
                parent.cli.out.println("schema unchanged: nothing to apply");
            } else {
                print(parent.cli, result.steps());
                parent.cli.out.println("applied as commit " + result.commit().get().id() + " (manifest version "
                        + manifestVersion + ")");
            }
            return OmnigraphCli.OK;
        }
    }

    /** {@code <root> --schema <pg>}, shared by plan and apply. */
    static final class NewSchema {
        @Parameters(index = "0", paramLabel = "<root>", description = "The graph root.")
        GraphRoot root;

        @Option(names = "--schema", required = true, paramLabel = "<pg>", description = "The new .pg schema file.")
        Path schema;
    }

    private static void print(OmnigraphCli cli, List<PlanStep> steps) {
        if (steps.isEmpty()) {
            cli.out.println("no changes");
        }
        steps.forEach(step -> cli.out.println(step.render()));
    }
}

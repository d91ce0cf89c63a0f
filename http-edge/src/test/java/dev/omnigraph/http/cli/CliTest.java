package dev.omnigraph.http.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.engine.read.QueryExecutor;
import dev.omnigraph.engine.read.QueryLimits;
import dev.omnigraph.http.testing.HttpFixture;
import dev.omnigraph.http.wire.Json;
import dev.omnigraph.storage.Failpoints;
import dev.omnigraph.storage.testing.StorageFixture;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.omnigraph.storage.root.GraphRoot;
import picocli.CommandLine;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/** The verbs end to end, in-process, on real graphs in a temp dir, with their output and exit codes. */
class CliTest {
    @TempDir
    Path dir;
    StorageServices services;
    Path schema;
    Path queries;
    Path data;
    Path root;

    @BeforeEach
    void setUp() throws Exception {
        services = new StorageServices(StorageFixture.scheduler(), StorageFixture.newTableStorage());
        schema = Files.writeString(dir.resolve("social.pg"), HttpFixture.SCHEMA);
        queries = Files.writeString(dir.resolve("social.gq"), HttpFixture.QUERIES);
        data = Files.writeString(dir.resolve("people.jsonl"), HttpFixture.PEOPLE);
        root = dir.resolve("graph");
    }

    @AfterEach
    void tearDown() {
        services.tables().close();
    }

    CliRun run(String... args) {
        return CliRun.run(services, args);
    }

    CliRun ok(String... args) {
        return CliRun.ok(services, args);
    }

    void initAndLoad() {
        ok("init", "--schema", schema.toString(), root.toString());
        ok("load", root.toString(), "--data", data.toString(), "--mode", "append");
    }

    @Test
    void initLoadSnapshotAndCommits() {
        CliRun init = ok("init", "--schema", schema.toString(), root.toString());
        assertThat(init.out()).contains("initialized graph at").contains("2 node type(s), 2 edge type(s)");
        CliRun again = run("init", "--schema", schema.toString(), root.toString());
        assertThat(again.code()).isEqualTo(1);
        assertThat(again.err()).startsWith("error[conflict]: ").contains("already exists");

        CliRun load = ok("load", root.toString(), "--data", data.toString(), "--mode", "append", "--as", "act-cli", "--json");
        JsonNode loaded = load.json();
        assertThat(loaded.path("total_entities").asInt()).isEqualTo(5);
        assertThat(loaded.path("commit").path("actor_id").asText()).isEqualTo("act-cli");
        String commit = loaded.path("commit").path("graph_commit_id").asText();

        CliRun human = ok("load", root.toString(), "--data", data.toString(), "--mode", "merge");
        assertThat(human.out()).startsWith("loaded 3 node(s) and 2 edge(s) into main (merge): commit ");

        CliRun snapshot = ok("snapshot", root.toString());
        assertThat(snapshot.out()).contains("branch main").contains("Person").contains("entities");
        JsonNode snap = ok("snapshot", root.toString(), "--json").json();
        assertThat(snap.path("datasets")).hasSize(4);

        JsonNode list = ok("commit", "list", root.toString(), "--json").json();
        assertThat(list.path("commits")).hasSize(3);
        assertThat(list.path("commits").get(1).path("graph_commit_id").asText()).isEqualTo(commit);
        CliRun lines = ok("commit", "list", root.toString());
        assertThat(lines.out().lines()).hasSize(3);
        assertThat(lines.out().lines().skip(1).findFirst().orElseThrow()).startsWith(commit).contains("load:append")
                .contains("by act-cli");

        CliRun show = ok("commit", "show", root.toString(), commit);
        assertThat(show.out()).contains("commit    " + commit).contains("actor     act-cli").contains("node:Person");
        assertThat(ok("commit", "show", root.toString(), commit, "--json").json().path("graph_commit_id").asText()).isEqualTo(commit);

        assertThat(ok("recovery", "list", root.toString()).out()).contains("no recoveries recorded");
        assertThat(ok("recovery", "list", root.toString(), "--json").json().path("recoveries")).isEmpty();
    }

    @Test
    void errorsPrintOneLineWithTheirCodeAndExitOne() throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.pg"), "node Person {\n  name: Strin @key\n}\n");
        CliRun parse = run("init", "--schema", bad.toString(), root.toString());
        assertThat(parse.code()).isEqualTo(1);
        assertThat(parse.err()).startsWith("error[parse_error]: schema:2:");
        assertThat(parse.err().lines()).hasSize(1);

        CliRun usage = run("init", root.toString());
        assertThat(usage.code()).isEqualTo(1);
        assertThat(usage.err()).startsWith("error[usage]: ").contains("--schema");

        CliRun missing = run("snapshot", dir.resolve("nowhere").toString());
        assertThat(missing.code()).isEqualTo(1);
        assertThat(missing.err()).startsWith("error[not_found]: ");

        initAndLoad();
        CliRun mode = run("load", root.toString(), "--data", data.toString(), "--mode", "upsert");
        assertThat(mode.err()).startsWith("error[bad_request]: unknown load mode");
        CliRun conflict = run("load", root.toString(), "--data", data.toString(), "--mode", "append", "--json");
        assertThat(conflict.code()).isEqualTo(1);
        assertThat(conflict.err()).startsWith("error[key_conflict]: ");
        assertThat(conflict.json().path("key_conflict").path("type_name").asText()).isIn("Person", "Company", "Knows", "WorksAt");

        CliRun readAsWrite = run("query", "addPerson", root.toString(), "--query", queries.toString());
        assertThat(readAsWrite.code()).isEqualTo(1);
        assertThat(readAsWrite.err()).contains("is a mutation");
    }

    @Test
    void mutateAndTheLostPreconditionExitsFour() {
        initAndLoad();
        JsonNode head = ok("snapshot", root.toString(), "--json").json();
        String expected = head.path("graph_commit_id").asText();

        CliRun human = ok("mutate", "addPerson", root.toString(), "--query", queries.toString(), "--params", "{\"name\":\"Cy\",\"age\":20}");
        assertThat(human.out()).startsWith("addPerson on main: 1 node(s), 0 edge(s) affected; commit ");

        CliRun lost = run("mutate", "setAge", root.toString(), "--query", queries.toString(),
                "--params", "{\"name\":\"Ada\",\"age\":50}", "--if-commit", expected, "--json");
        assertThat(lost.code()).as(lost.toString()).isEqualTo(OmnigraphCli.LOST_PRECONDITION);
        assertThat(lost.err()).startsWith("error[precondition_failure]: ");
        assertThat(lost.json().path("precondition_failure").path("expected").asText()).isEqualTo(expected);

        String current = ok("snapshot", root.toString(), "--json").json().path("graph_commit_id").asText();
        Path params = dir.resolve("params.json");
        try {
            Files.writeString(params, "{\"name\":\"Ada\",\"age\":50}");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        JsonNode won = ok("mutate", "setAge", root.toString(), "-e", HttpFixture.QUERIES, "--params-file", params.toString(),
                "--if-commit", current, "--as", "act-cli", "--json").json();
        assertThat(won.path("commit").path("parent_commit_id").asText()).isEqualTo(current);
        assertThat(won.path("actor_id").asText()).isEqualTo("act-cli");

        JsonNode noop = ok("mutate", "setAge", root.toString(), "-e", HttpFixture.QUERIES,
                "--params", "{\"name\":\"Nobody\",\"age\":1}", "--json").json();
        assertThat(noop.path("commit").isNull()).isTrue();
    }

    @Test
    void idempotencyKeysMakeMutateAndLoadSafeToRerun() {
        ok("init", "--schema", schema.toString(), root.toString());
        CliRun loaded = ok("load", root.toString(), "--data", data.toString(), "--mode", "append", "--idempotency-key", "load-1", "--json");
        CliRun reloaded = ok("load", root.toString(), "--data", data.toString(), "--mode", "append", "--idempotency-key", "load-1", "--json");
        assertThat(reloaded.out()).as("an append that would conflict replays instead").isEqualTo(loaded.out());

        String[] knows = {"mutate", "knows", root.toString(), "--query", queries.toString(), "--params",
                "{\"a\":\"Bob\",\"b\":\"Ada\"}", "--idempotency-key", "edge-1"};
        CliRun first = ok(knows);
        CliRun again = ok(knows);
        assertThat(again.out()).startsWith("replayed (idempotency key already used): knows on main: 0 node(s), 1 edge(s)")
                .endsWith(first.out());
        assertThat(ok("commit", "list", root.toString(), "--json").json().path("commits")).hasSize(3);

        CliRun reused = run("mutate", "knows", root.toString(), "--query", queries.toString(), "--params",
                "{\"a\":\"Ada\",\"b\":\"Bob\"}", "--idempotency-key", "edge-1");
        assertThat(reused.code()).as(reused.toString()).isEqualTo(1);
        assertThat(reused.err()).startsWith("error[idempotency_key_reused]: idempotency key 'edge-1'");
        CliRun bad = run("mutate", "knows", root.toString(), "--query", queries.toString(), "--params",
                "{\"a\":\"Ada\",\"b\":\"Bob\"}", "--idempotency-key", "");
        assertThat(bad.err()).startsWith("error[bad_request]: idempotency key must be 1 to 255 characters");
    }

    @Test
    void serveAnswersUntilInterrupted() throws Exception {
        ok("init", "--schema", schema.toString(), root.toString());
        Pattern url = Pattern.compile("at (http://127\\.0\\.0\\.1:\\d+)");
        CompletableFuture<String> banner = new CompletableFuture<>();
        // Completes the moment the start-up banner (which names the URL, then the curl hint) has been printed.
        ByteArrayOutputStream out = new ByteArrayOutputStream() {
            @Override
            public synchronized void write(byte[] bytes, int offset, int length) {
                super.write(bytes, offset, length);
                String text = toString(StandardCharsets.UTF_8);
                if (text.contains("curl") && url.matcher(text).find()) {
                    banner.complete(text);
                }
            }
        };
        AtomicInteger code = new AtomicInteger(-1);
        Thread serving = new Thread(() -> code.set(OmnigraphCli.run(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true), services, "serve", root.toString(), "--port", "0")));
        serving.start();
        String printed = banner.get(60, TimeUnit.SECONDS);
        assertThat(printed).contains("auth: off").contains("curl");
        Matcher matcher = url.matcher(printed);
        assertThat(matcher.find()).isTrue();
        String base = matcher.group(1);
        String snapshot = HttpClient.newConnection().baseUrl(base).get().uri("/snapshot")
                .responseSingle((r, b) -> b.asString()).block(Duration.ofSeconds(30));
        assertThat(Json.parse(snapshot, "snapshot").path("graph_branch").asText()).isEqualTo("main");
        serving.interrupt();
        serving.join(Duration.ofSeconds(60).toMillis());
        assertThat(serving.isAlive()).isFalse();
        assertThat(code.get()).isZero();
        Mono<Integer> after = HttpClient.newConnection().baseUrl(base).get().uri("/healthz")
                .responseSingle((r, b) -> Mono.just(r.status().code()));
        assertThat(after.onErrorReturn(-1).block(Duration.ofSeconds(10))).isEqualTo(-1);
    }

    @Test
    void serveWithAMissingTokensFileIsAStartupErrorNamingTheFlag() {
        ok("init", "--schema", schema.toString(), root.toString());
        CliRun run = run("serve", root.toString(), "--port", "0", "--tokens-file", dir.resolve("absent").toString());
        assertThat(run.code()).as(run.toString()).isEqualTo(1);
        assertThat(run.err()).contains("--tokens-file").contains("no such file").doesNotContain("internal");
        CliRun bad = run("serve", root.toString(), "--port", "0", "--max-connections", "0");
        assertThat(bad.code()).as(bad.toString()).isEqualTo(1);
        assertThat(bad.err()).contains("--max-connections");
    }

    // ---- these need the engine's read queries and export ----------------------------------------------------

    @Test
    void queryInEveryFormat() {
        initAndLoad();
        CliRun table = ok("query", "people", root.toString(), "--query", queries.toString());
        assertThat(table.out()).contains("Ada").contains("Bob").contains("(2 rows)");
        assertThat(table.out().lines().findFirst().orElseThrow()).contains("name");

        CliRun jsonl = ok("query", "people", root.toString(), "--query", queries.toString(), "--format", "jsonl");
        assertThat(jsonl.out().lines()).hasSize(3); // the metadata line, then the rows
        assertThat(Json.parse(jsonl.out().lines().skip(1).findFirst().orElseThrow(), "row").toString()).contains("Ada");

        JsonNode json = ok("query", "people", root.toString(), "-e", HttpFixture.QUERIES, "--json").json();
        assertThat(json.path("row_count").asInt()).isEqualTo(2);
        assertThat(json.path("graph_commit_id").asText()).hasSize(26);

        CliRun csv = ok("query", "people", root.toString(), "--query", queries.toString(), "--format", "csv");
        assertThat(csv.out().lines()).hasSize(3);

        String genesis = ok("commit", "list", root.toString(), "--json").json().path("commits").get(1).path("graph_commit_id").asText();
        CliRun past = ok("query", "people", root.toString(), "--query", queries.toString(), "--snapshot", genesis);
        assertThat(past.out()).contains("(0 rows)");
    }

    // ---- query budgets ---------------------------------------------------------------------------------------

    /** A two-way cross product over 50 people (2,500 rows), with budget flags. */
    CliRun cross(String... flags) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("query", "cross", root.toString(),
                "-e=query cross() { match { $a: Person $b: Person } return { $a.name, $b.name } }"));
        args.addAll(java.util.List.of(flags));
        return run(args.toArray(String[]::new));
    }

    void initWithFiftyPeople() throws Exception {
        StringBuilder people = new StringBuilder();
        for (int i = 0; i < 50; i++) people.append("{\"type\":\"Person\",\"data\":{\"name\":\"p").append(i).append("\"}}\n");
        ok("init", "--schema", schema.toString(), root.toString());
        ok("load", root.toString(), "--data", Files.writeString(dir.resolve("fifty.jsonl"), people).toString(), "--mode", "append");
    }

    @Test
    void eachQueryBudgetFlagIsAppliedAndABreachIsATypedError() throws Exception {
        initWithFiftyPeople();
        assertThat(cross().out()).contains("(2500 rows)");

        CliRun intermediate = cross("--query-max-intermediate-rows", "100");
        assertThat(intermediate.code()).isEqualTo(1);
        assertThat(intermediate.err()).startsWith("error[resource_limit]: query_intermediate_rows is 101, above the limit of 100");

        CliRun rows = cross("--query-max-rows", "2499", "--json");
        assertThat(rows.code()).isEqualTo(1);
        assertThat(rows.json().path("resource_limit").toString())
                .isEqualTo("{\"resource\":\"query_result_rows\",\"limit\":2499,\"actual\":2500}");

        CliRun memory = cross("--query-max-memory", "16KiB");
        assertThat(memory.err()).startsWith("error[resource_limit]: query_memory_bytes is ");
        assertThat(cross("--query-max-memory", "64MiB", "--query-max-rows", "2500").code()).isZero();
    }

    @Test
    void aStalledQueryTimesOutWithItsOwnCode() throws Exception {
        initWithFiftyPeople();
        // Handles arm failpoints from this property when they open; the CLI opens its own handle per run.
        System.setProperty(Failpoints.PROPERTY, QueryExecutor.SCAN_FAILPOINT + "=delay(600000)");
        try {
            CliRun stalled = cross("--query-timeout", "200ms", "--json");
            assertThat(stalled.code()).isEqualTo(1);
            assertThat(stalled.err()).startsWith("error[query_timeout]: query timed out after 200 ms");
            assertThat(stalled.json().path("query_timeout").path("timeout_ms").asLong()).isEqualTo(200);
        } finally {
            System.clearProperty(Failpoints.PROPERTY);
        }
        assertThat(cross("--query-timeout", "30s").code()).isZero();
    }

    @Test
    void badQueryBudgetValuesNameTheirFlag() throws Exception {
        initWithFiftyPeople();
        assertThat(cross("--query-timeout", "0").err()).startsWith("error[bad_request]: --query-timeout must be positive");
        assertThat(cross("--query-timeout", "soon").err()).startsWith("error[bad_request]: --query-timeout takes a duration");
        assertThat(cross("--query-timeout", "9223372036854775807m").err()).startsWith("error[bad_request]: --query-timeout");
        assertThat(cross("--query-timeout", "25h").err()).startsWith("error[bad_request]: --query-timeout");
        assertThat(cross("--query-max-memory", "lots").err()).startsWith("error[bad_request]: --query-max-memory takes bytes");
        assertThat(cross("--query-max-rows", "0").err()).startsWith("error[bad_request]: --query-max-rows must be positive");
        assertThat(cross("--query-max-rows", "many").err()).startsWith("error[usage]:");
    }

    @Test
    void serveTakesTheSameQueryBudgetFlags() {
        ServeCommand serve = new ServeCommand();
        new CommandLine(serve).registerConverter(GraphRoot.class, GraphRoot::parse).parseArgs(root.toString(), "--query-timeout", "2m", "--query-max-rows", "7",
                "--query-max-intermediate-rows", "9", "--query-max-memory", "3MiB");
        assertThat(QueryLimitOptions.of(serve.queryLimits, QueryLimits.DEFAULT))
                .isEqualTo(new QueryLimits(9, 7, 3L << 20, Duration.ofMinutes(2)));
        ServeCommand plain = new ServeCommand();
        new CommandLine(plain).registerConverter(GraphRoot.class, GraphRoot::parse).parseArgs(root.toString());
        assertThat(QueryLimitOptions.of(plain.queryLimits, QueryLimits.DEFAULT)).isEqualTo(QueryLimits.DEFAULT);
    }

    @Test
    void exportWritesTheLoadFormat() {
        initAndLoad();
        CliRun all = ok("export", root.toString());
        assertThat(all.out().lines()).hasSize(5);
        CliRun people = ok("export", root.toString(), "--type", "Person");
        assertThat(people.out().lines()).hasSize(2).allSatisfy(line -> assertThat(line).contains("\"Person\""));
    }

    @Test
    void demoBuildsMutatesAndQueriesAndCanRunTwice() {
        Path demo = dir.resolve("demo");
        CliRun first = ok("demo", "--root", demo.toString());
        assertThat(first.out()).contains("1. init").contains("2. load").contains("3. mutate").contains("4. query")
                .contains("Ada").contains("Acme").contains("5. snapshot");
        CliRun second = ok("demo", "--root", demo.toString());
        assertThat(second.out()).contains("graph exists");
    }

    @Test
    void failpointsAreListedByWriter() {
        CliRun run = ok("failpoints");
        assertThat(run.out().lines()).contains("# mutation", "# load", "# recovery", "mutation.after_arm",
                "load.after_commit:<n>", "recovery.after_audit");
    }

    @Test
    void repairPreviewsAndPublishesUntrackedDriftOnlyWhenForced() throws Exception {
        initAndLoad();
        CliRun clean = ok("repair", root.toString());
        assertThat(clean.out()).contains("no drift");

        // A version written to a table outside any tracked write.
        var graph = dev.omnigraph.engine.Omnigraph.open(services, root, dev.omnigraph.engine.OpenMode.READ_WRITE).block();
        var table = graph.snapshot(dev.omnigraph.engine.ReadTarget.main()).block().table("node:Person").orElseThrow();
        var ref = new dev.omnigraph.storage.TableRef(root.resolve(table.path()).toString(), table.lanceBranch());
        var pinned = services.tables().open(ref, java.util.OptionalLong.of(table.version())).block();
        java.util.Map<String, Object> stray = new java.util.HashMap<>();
        stray.put("id", "Stray");
        stray.put("name", "Stray");
        services.tables().commitStaged(services.tables().stageAppend(pinned, java.util.List.of(stray), java.util.Map.of()).block()).block();

        CliRun preview = run("repair", root.toString());
        assertThat(preview.code()).as(preview.toString()).isEqualTo(OmnigraphCli.ERROR);
        assertThat(preview.out()).contains("node:Person").contains("published " + table.version());
        assertThat(preview.out()).contains("unverified").contains("Append");
        assertThat(preview.err()).contains("--confirm");
        CliRun confirmed = run("repair", root.toString(), "--confirm");
        assertThat(confirmed.code()).as(confirmed.toString()).isEqualTo(OmnigraphCli.ERROR);
        assertThat(confirmed.err()).contains("--force --confirm");
        CliRun fixed = ok("repair", root.toString(), "--confirm", "--force", "--json");
        assertThat(fixed.out()).contains("\"kind\":\"unverified\"").contains("\"published\":true");
        assertThat(ok("repair", root.toString()).out()).contains("no drift");
    }

    @Test
    void optimizeCompactsOnceThenHasNothingToDo() throws Exception {
        initAndLoad();
        ok("mutate", "addPerson", root.toString(), "--query", queries.toString(), "--params", "{\"name\":\"Zoe\",\"age\":3}");
        ok("mutate", "addPerson", root.toString(), "--query", queries.toString(), "--params", "{\"name\":\"Zed\",\"age\":4}");
        CliRun first = ok("optimize", root.toString(), "--json");
        // The two writes' fragments merge; the load's, which carries the key index built with it, stays apart.
        assertThat(first.out()).contains("\"table_key\":\"node:Person\"").contains("\"fragments_after\":2")
                .doesNotContain("\"graph_commit_id\":null");
        CliRun second = ok("optimize", root.toString());
        assertThat(second.out()).contains("nothing to compact");
        ok("branch", "create", root.toString(), "dev");
        ok("mutate", "addPerson", root.toString(), "--query", queries.toString(), "--branch", "dev", "--params",
                "{\"name\":\"Yan\",\"age\":4}");
        CliRun onDev = ok("optimize", root.toString(), "--branch", "dev");
        assertThat(onDev.out()).contains("node:Person  indexes og_btree_id").contains("committed");
        assertThat(ok("optimize", root.toString()).out()).contains("nothing to compact");
    }

    @Test
    void checkTypeChecksEveryQueryWithoutAGraph() throws Exception {
        CliRun good = ok("check", "--schema", schema.toString(), "--query", queries.toString());
        assertThat(good.out()).contains("ok     addPerson").contains("ok: schema with 4 table(s)");
        Path broken = Files.writeString(dir.resolve("broken.gq"), HttpFixture.QUERIES
                + "\nquery bad() { match { $p: Persn } return { $p } }\n");
        CliRun bad = run("check", "--schema", schema.toString(), "--query", broken.toString(), "--json");
        assertThat(bad.code()).as(bad.toString()).isEqualTo(OmnigraphCli.ERROR);
        assertThat(bad.out()).contains("\"name\":\"bad\"").contains("\"ok\":false").contains("T1");
        Path badSchema = Files.writeString(dir.resolve("bad.pg"), "node A { x: Nope }");
        CliRun invalid = run("check", "--schema", badSchema.toString());
        assertThat(invalid.code()).isEqualTo(OmnigraphCli.ERROR);
        assertThat(invalid.err()).contains("error[parse_error]");
        assertThat(root).doesNotExist();
    }

    @Test
    void aHundredThousandLineLoadAsOneOverwriteAndAsChunkedMerges() throws Exception {
        Path big = dir.resolve("big.jsonl");
        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 60_000; i++) {
            lines.append("{\"type\":\"Person\",\"data\":{\"name\":\"p").append(i).append("\",\"age\":")
                    .append(i % 90).append("}}\n");
        }
        for (int i = 0; i < 40_000; i++) {
            lines.append("{\"edge\":\"Knows\",\"from\":\"p").append(i).append("\",\"to\":\"p").append(i + 1)
                    .append("\",\"data\":{\"id\":\"k").append(i).append("\"}}\n");
        }
        Files.writeString(big, lines);

        ok("init", "--schema", schema.toString(), root.toString());
        CliRun overwrite = ok("load", root.toString(), "--data", big.toString(), "--mode", "overwrite");
        assertThat(overwrite.out()).contains("60000 node(s) and 40000 edge(s)");
        assertThat(ok("snapshot", root.toString()).out()).containsPattern("Person\\s+\\d+\\s+60000")
                .containsPattern("Knows\\s+\\d+\\s+40000");

        Path chunked = dir.resolve("chunked");
        ok("init", "--schema", schema.toString(), chunked.toString());
        CliRun merged = ok("load", chunked.toString(), "--data", big.toString(), "--mode", "merge", "--chunk-size", "8192");
        assertThat(merged.out()).contains("loaded 100000 line(s) in 13 commit(s)").contains("chunk 13 (lines 98305-100000)");
        assertThat(ok("snapshot", chunked.toString()).out()).containsPattern("Person\\s+\\d+\\s+60000")
                .containsPattern("Knows\\s+\\d+\\s+40000");
        assertThat(ok("commit", "list", chunked.toString()).out().lines().filter(l -> l.contains("load:merge"))).hasSize(13);
        CliRun refused = run("load", chunked.toString(), "--data", big.toString(), "--mode", "overwrite", "--chunk-size", "10");
        assertThat(refused.code()).isEqualTo(OmnigraphCli.ERROR);
    }
}

package dev.omnigraph.engine;

import static dev.omnigraph.engine.GraphTestSupport.ndjson;
import static dev.omnigraph.engine.GraphTestSupport.versions;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.omnigraph.engine.load.LoadMode;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.ParseError;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * NUL and unpaired surrogates are refused at every boundary of the facade with a typed 400-class error naming the
 * field, before any effect: the head commit and every table version stay as they were. Real Lance datasets.
 */
class TextRulesTest extends ConstrainedGraphTest {
    static final String QUERIES = """
            query addNote($text: String) { insert Note { text: $text } }
            query addCompany($name: String) { insert Company { name: $name } }
            query notes($text: String) { match { $n: Note { text: $text } } return { $n.text } }
            """;

    Map<String, Long> before;
    Optional<String> head;

    @BeforeEach
    void seed() {
        graph.load("main", LoadMode.APPEND, ndjson("{\"type\":\"Note\",\"data\":{\"id\":\"n1\",\"text\":\"seed\"}}",
                "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}"), LoadOptions.DEFAULT).block();
        before = versions(graph);
        head = headCommit();
        assertThat(head).isPresent();
    }

    private Optional<String> headCommit() {
        return graph.snapshot(ReadTarget.main()).block().graphCommitId();
    }

    /** Runs {@code call}, expects {@code type}, and checks that nothing changed. */
    private <T extends Throwable> T refused(Class<T> type, Supplier<Mono<?>> call) {
        Throwable thrown = catchThrowable(() -> call.get().block());
        assertThat(thrown).isInstanceOf(type);
        assertThat(headCommit()).as("head commit").isEqualTo(head);
        assertThat(versions(graph)).as("table versions").isEqualTo(before);
        return type.cast(thrown);
    }

    private Mono<?> mutate(String name, Map<String, Object> params) {
        return graph.mutate("main", QUERIES, name, params, WriteOptions.DEFAULT);
    }

    @Test
    void nulOrUnpairedSurrogateInAParamIsABadRequestNamingIt() {
        assertThat(refused(BadRequest.class, () -> mutate("addNote", Map.of("text", "a\u0000b"))))
                .hasMessageStartingWith("param $text contains a NUL character (U+0000)");
        // What a JSON escape of a lone surrogate decodes to, here in a key.
        assertThat(refused(BadRequest.class, () -> mutate("addCompany", Map.of("name", "x\uD800"))))
                .hasMessageStartingWith("param $name contains an unpaired surrogate (U+D800)");
        assertThat(refused(BadRequest.class, () -> graph.query(ReadTarget.main(), QUERIES, "notes",
                Map.of("text", "\uDC00")))).hasMessageStartingWith("param $text contains an unpaired surrogate");
    }

    @Test
    void nulInAQueryLiteralIsAPositionedParseError() {
        String source = "query literal() {\n  insert Note { text: \"bad\u0000\" }\n}";
        ParseError e = refused(ParseError.class, () -> graph.mutate("main", source, "literal", Map.of(),
                WriteOptions.DEFAULT));
        assertThat(e.line()).isEqualTo(2);
        assertThat(e.column()).isEqualTo(27);
        assertThat(e.subject()).isEqualTo("literal");
    }

    @Test
    void nulOrUnpairedSurrogateInNdjsonNamesTheLineAndFieldAndLoadsNothing() {
        String good = "{\"type\":\"Note\",\"data\":{\"text\":\"fine\"}}";
        ParseError nul = refused(ParseError.class, () -> graph.load("main", LoadMode.APPEND,
                ndjson(good, "{\"type\":\"Note\",\"data\":{\"text\":\"a\\u0000\"}}"), LoadOptions.DEFAULT));
        assertThat(nul.line()).isEqualTo(2);
        assertThat(nul.subject()).isEqualTo("data.text");

        ParseError key = refused(ParseError.class, () -> graph.load("main", LoadMode.MERGE,
                ndjson("{\"type\":\"Company\",\"data\":{\"name\":\"\\ud800\"}}"), LoadOptions.DEFAULT));
        assertThat(key.line()).isEqualTo(1);
        assertThat(key.subject()).isEqualTo("data.name");

        ParseError endpoint = refused(ParseError.class, () -> graph.load("main", LoadMode.APPEND,
                ndjson("{\"edge\":\"Knows\",\"from\":\"\\udbff\",\"to\":\"n1\"}"), LoadOptions.DEFAULT));
        assertThat(endpoint.subject()).isEqualTo("from");
    }

    @Test
    void branchNamesCommitIdsAndActorsThatAreNotValidTextAreBadRequests() {
        assertThat(refused(BadRequest.class, () -> graph.snapshot(ReadTarget.branch("ma\u0000in"))))
                .hasMessageStartingWith("branch contains a NUL character");
        assertThat(refused(BadRequest.class, () -> graph.snapshot(ReadTarget.commit("01\uD800"))))
                .hasMessageStartingWith("commit id contains an unpaired surrogate");
        assertThat(refused(BadRequest.class, () -> graph.commit("\u0000"))).hasMessageStartingWith("commit id");
        assertThat(refused(BadRequest.class, () -> graph.commits("x\uDC00").collectList()))
                .hasMessageStartingWith("branch contains an unpaired surrogate");
        assertThat(refused(BadRequest.class, () -> graph.query(ReadTarget.branch("\uD800"), QUERIES, "notes",
                Map.of("text", "x")))).hasMessageStartingWith("branch");
        assertThat(refused(BadRequest.class, () -> graph.mutate("main\u0000", QUERIES, "addNote",
                Map.of("text", "x"), WriteOptions.DEFAULT))).hasMessageStartingWith("branch contains");
        assertThat(refused(BadRequest.class, () -> graph.mutate("main", QUERIES, "addNote", Map.of("text", "x"),
                WriteOptions.DEFAULT.actor("a\u0000")))).hasMessageStartingWith("actor id contains");
        assertThat(refused(BadRequest.class, () -> graph.load("main", LoadMode.APPEND,
                ndjson("{\"type\":\"Note\",\"data\":{\"text\":\"x\"}}"), LoadOptions.DEFAULT.ifGraphCommit("\uDFFF"))))
                .hasMessageStartingWith("expected graph commit id contains");
    }
}

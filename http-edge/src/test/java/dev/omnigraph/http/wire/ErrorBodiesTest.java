package dev.omnigraph.http.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.CommitConflict;
import dev.omnigraph.storage.error.IdempotencyKeyReused;
import dev.omnigraph.storage.error.KeyConflict;
import dev.omnigraph.storage.error.ManifestConflict;
import dev.omnigraph.storage.error.NotFound;
import dev.omnigraph.storage.error.ParseError;
import dev.omnigraph.storage.error.PreconditionFailed;
import dev.omnigraph.storage.error.QueryTimeout;
import dev.omnigraph.storage.error.ReadSetChanged;
import dev.omnigraph.storage.error.RecoveryRequired;
import dev.omnigraph.storage.error.ResourceLimitExceeded;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.error.StorageOverloaded;
import dev.omnigraph.storage.error.ValidationError;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.Exceptions;

/** The one error shape: status, coarse code, and each error's structured detail. */
class ErrorBodiesTest {
    private static ErrorBodies.Reply of(Throwable t) {
        return ErrorBodies.of(t, name -> name.equals("Person") ? "node" : null);
    }

    @Test
    void parseAndValidationErrorsAre400WithPositionAndSubject() {
        ErrorBodies.Reply parse = of(new ParseError("query", 3, 5, "q", "Q000: expected '}'"));
        assertThat(parse.status()).isEqualTo(400);
        assertThat(parse.wireCode()).isEqualTo("parse_error");
        JsonNode body = parse.body();
        assertThat(body.path("error").asText()).isEqualTo("query:3:5: [q] Q000: expected '}'");
        assertThat(body.path("code").asText()).isEqualTo("bad_request");
        assertThat(body.path("parse_error").toString())
                .isEqualTo("{\"source\":\"query\",\"line\":3,\"column\":5,\"subject\":\"q\"}");

        ErrorBodies.Reply invalid = of(new ValidationError("Person", "age", "Ada", "age 200 is out of range"));
        assertThat(invalid.status()).isEqualTo(400);
        assertThat(invalid.body().path("validation_error").toString())
                .isEqualTo("{\"type_name\":\"Person\",\"property\":\"age\",\"entity_id\":\"Ada\"}");
        assertThat(of(new BadRequest("nope")).body().toString()).isEqualTo("{\"error\":\"nope\",\"code\":\"bad_request\"}");
    }

    @Test
    void conflictsAre409WithTheirDetail() {
        JsonNode key = of(new KeyConflict("Person", List.of("Ada", "Bob"))).body();
        assertThat(of(new KeyConflict("Person", List.of("Ada"))).status()).isEqualTo(409);
        assertThat(key.path("code").asText()).isEqualTo("conflict");
        assertThat(key.path("key_conflict").path("entity_kind").asText()).isEqualTo("node");
        assertThat(key.path("key_conflict").path("entity_id").asText()).isEqualTo("Ada");
        assertThat(key.path("key_conflict").path("entity_ids")).hasSize(2);

        ErrorBodies.Reply readSet = of(new ReadSetChanged("graph_head:main", "01A", "01B"));
        assertThat(readSet.status()).isEqualTo(409);
        assertThat(readSet.wireCode()).isEqualTo("read_set_conflict");
        assertThat(readSet.body().path("read_set_conflict").toString())
                .isEqualTo("{\"member\":\"graph_head:main\",\"expected\":\"01A\",\"actual\":\"01B\"}");
        ErrorBodies.Reply manifest = of(new ManifestConflict("graph_head:main", "01A", "01B"));
        assertThat(manifest.status()).isEqualTo(409);
        assertThat(manifest.body().path("code").asText()).isEqualTo("conflict");
        assertThat(manifest.body().path("manifest_conflict").path("member").asText()).isEqualTo("graph_head:main");
        assertThat(of(new CommitConflict("/x", 3, true, null)).status()).isEqualTo(409);
    }

    @Test
    void aReusedIdempotencyKeyIs422WithItsKeyAndTheRecordedCommit() {
        ErrorBodies.Reply recorded = of(new IdempotencyKeyReused("k-1", java.util.Optional.of("01C")));
        assertThat(recorded.status()).isEqualTo(422);
        assertThat(recorded.wireCode()).isEqualTo("idempotency_key_reused");
        assertThat(recorded.body().path("code").asText()).isEqualTo("conflict");
        assertThat(recorded.body().path("idempotency_key_reused").path("key").asText()).isEqualTo("k-1");
        assertThat(recorded.body().path("idempotency_key_reused").path("graph_commit_id").asText()).isEqualTo("01C");
        JsonNode running = of(new IdempotencyKeyReused("k-1", java.util.Optional.empty())).body();
        assertThat(running.path("idempotency_key_reused").has("graph_commit_id")).isFalse();
        assertThat(running.path("error").asText()).contains("still running");
    }

    @Test
    void preconditionLimitAndRecoveryCarryTheirDetailAndNoCodeWhereTheReferenceOmitsIt() {
        JsonNode pre = of(new PreconditionFailed("01A", "01B")).body();
        assertThat(of(new PreconditionFailed("01A", "01B")).status()).isEqualTo(412);
        assertThat(pre.has("code")).isFalse();
        assertThat(pre.path("precondition_failure").toString()).isEqualTo("{\"expected\":\"01A\",\"actual\":\"01B\"}");

        ErrorBodies.Reply limit = of(new ResourceLimitExceeded("entities for node:Person", 8192, 8193, "split it"));
        assertThat(limit.status()).isEqualTo(413);
        assertThat(limit.body().path("code").asText()).isEqualTo("bad_request");
        assertThat(limit.body().path("resource_limit").toString())
                .isEqualTo("{\"resource\":\"entities for node:Person\",\"limit\":8192,\"actual\":8193}");

        ErrorBodies.Reply recovery = of(new RecoveryRequired("01OP", "write stopped after its first effect", null));
        assertThat(recovery.status()).isEqualTo(503);
        assertThat(recovery.body().has("code")).isFalse();
        assertThat(recovery.body().path("recovery_required").path("operation_id").asText()).isEqualTo("01OP");
    }

    @Test
    void everythingElseMapsToAStatusAndACoarseCode() {
        assertThat(of(new NotFound("branch", "x", "branch x does not exist")).body().toString())
                .isEqualTo("{\"error\":\"branch x does not exist\",\"code\":\"not_found\"}");
        assertThat(of(new StorageFault("disk on fire", null)).status()).isEqualTo(500);
        assertThat(of(new StorageFault("disk on fire", null)).body().path("code").asText()).isEqualTo("internal");
        assertThat(of(new StorageOverloaded("queue full", null)).status()).isEqualTo(503);
        assertThat(of(new StorageOverloaded("queue full", null)).body().path("code").asText()).isEqualTo("too_many_requests");
        assertThat(of(HttpProblem.unsupportedMediaType("send json")).status()).isEqualTo(415);
        assertThat(of(new IllegalStateException("boom")).status()).isEqualTo(500);
        assertThat(of(Exceptions.propagate(new java.io.IOException("io"))).body().path("error").asText()).contains("io");
        assertThat(of(new UnsupportedOperationException("later")).status()).isEqualTo(501);
    }

    @Test
    void aLostWriterLeaseIsA503WithTheEpochItHeld() {
        ErrorBodies.Reply reply = of(new dev.omnigraph.storage.error.LeaseLost(3, "another process took the lease over"));
        assertThat(reply.status()).isEqualTo(503);
        assertThat(reply.wireCode()).isEqualTo("lease_lost");
        assertThat(reply.body().has("code")).isFalse();
        assertThat(reply.body().path("lease_lost").path("writer_epoch").asLong()).isEqualTo(3);
    }

    @Test
    void engineValuesBecomeJson() {
        JsonNode row = Json.row(List.of("a", "b", "c", "d", "e", "f"), List.of("x", 1, 2L, 1.5d,
                java.time.LocalDate.of(2020, 1, 2), List.of(java.time.Instant.parse("2024-01-02T03:04:05Z"), Float.NaN)));
        assertThat(row.toString()).isEqualTo(
                "{\"a\":\"x\",\"b\":1,\"c\":2,\"d\":1.5,\"e\":\"2020-01-02\",\"f\":[\"2024-01-02T03:04:05.000Z\",\"NaN\"]}");
    }

    @Test
    void servedBodiesCarryTheRequestIdAndServerFaultsSayNoMore() {
        String nativeDetail = "scan on /srv/graphs/social/nodes/Person.lance failed: LanceError(IO): "
                + "No such file or directory, /home/ci/.cargo/registry/src/lance-0.39.0/src/dataset.rs:1234:56";
        ErrorBodies.Reply fault = ErrorBodies.served(new StorageFault(nativeDetail, new RuntimeException("x")), n -> null, "ab12-7");
        assertThat(fault.status()).isEqualTo(500);
        assertThat(fault.body().path("code").asText()).isEqualTo("internal");
        assertThat(fault.body().path("request_id").asText()).isEqualTo("ab12-7");
        assertThat(fault.body().path("error").asText()).contains("ab12-7").doesNotContain("/srv").doesNotContain(".rs")
                .doesNotContain("Lance");
        ErrorBodies.Reply crash = ErrorBodies.served(new IllegalStateException("at /tmp/x"), n -> null, "ab12-8");
        assertThat(crash.body().toString()).doesNotContain("/tmp").doesNotContain("IllegalStateException");

        ErrorBodies.Reply missing = ErrorBodies.served(new NotFound("branch", "dev", "branch dev does not exist in this graph"),
                n -> null, "ab12-9");
        assertThat(missing.status()).isEqualTo(404);
        assertThat(missing.body().path("error").asText()).isEqualTo("branch dev does not exist in this graph");
        assertThat(missing.body().path("request_id").asText()).isEqualTo("ab12-9");
    }

    @Test
    void aQueryTimeoutIs503WithItsBudgetAsTheDetailAndNoCode() {
        ErrorBodies.Reply timeout = of(new QueryTimeout(java.time.Duration.ofMillis(1500)));
        assertThat(timeout.status()).isEqualTo(503);
        assertThat(timeout.wireCode()).isEqualTo("query_timeout");
        assertThat(timeout.body().has("code")).isFalse();
        assertThat(timeout.body().path("query_timeout").toString()).isEqualTo("{\"timeout_ms\":1500}");
        assertThat(timeout.body().path("error").asText()).contains("1500 ms");
    }
}

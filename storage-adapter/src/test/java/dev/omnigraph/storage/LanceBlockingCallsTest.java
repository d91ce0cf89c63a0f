package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** BlockHound knows Lance's native I/O entry points: one called on a non-blocking thread fails the test run. */
class LanceBlockingCallsTest {
    @TempDir
    Path dir;

    @Test
    void openingADatasetOnANonBlockingThreadIsRefused() {
        String path = dir.resolve("t").toString();
        try (LanceTableStorage storage = StorageFixture.newTableStorage()) {
            Schema schema = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Utf8()), null)));
            storage.create(path, schema).block(); // on the storage scheduler: allowed
        }
        StepVerifier.create(Mono.fromCallable(() -> {
                    try (RootAllocator allocator = new RootAllocator(); Dataset dataset = Dataset.open(path, allocator)) {
                        return dataset.version();
                    }
                }).subscribeOn(Schedulers.parallel()))
                .expectErrorSatisfies(error -> assertThat(error).isInstanceOf(BlockingOperationError.class)
                        .hasMessageContaining("open"))
                .verify();
    }
}

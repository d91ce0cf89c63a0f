package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.error.StorageFault;
import dev.omnigraph.storage.testing.StorageFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

class LocalObjectStoreTest {
    @TempDir
    Path scratch;
    /** A folder inside the test's own temp dir, so the escape check's "../x" lands where nothing else writes. */
    Path root;
    LocalObjectStore store;

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectory(scratch.resolve("root"));
        store = new LocalObjectStore(root, StorageFixture.scheduler());
    }

    static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void putGetReplaceDeleteExists() {
        assertThat(store.get("__recovery/a.json").block()).isEmpty();
        assertThat(store.exists("__recovery/a.json").block()).isFalse();
        store.put("__recovery/a.json", utf8("one")).block();
        assertThat(store.get("__recovery/a.json").block()).hasValueSatisfying(b -> assertThat(new String(b, StandardCharsets.UTF_8)).isEqualTo("one"));
        store.put("__recovery/a.json", utf8("two")).block();
        assertThat(new String(store.get("__recovery/a.json").block().orElseThrow(), StandardCharsets.UTF_8)).isEqualTo("two");
        assertThat(store.exists("__recovery/a.json").block()).isTrue();
        assertThat(store.delete("__recovery/a.json").block()).isTrue();
        assertThat(store.delete("__recovery/a.json").block()).isFalse();
        assertThat(store.get("__recovery/a.json").block()).isEmpty();
        store.put("__recovery/b.json", utf8("three")).block();
        assertThat(store.deleteLazily("__recovery/b.json").block()).isTrue();
        assertThat(store.deleteLazily("__recovery/b.json").block()).isFalse();
        assertThat(store.exists("__recovery/b.json").block()).isFalse();
    }

    @Test
    void listIsSortedScopedAndNeverShowsTempFiles() throws Exception {
        store.put("__recovery/02.json", utf8("b")).block();
        store.put("__recovery/01.json", utf8("a")).block();
        store.put("_schema.pg", utf8("x")).block();
        Files.writeString(root.resolve("__recovery/03.json#123456"), "torn");
        assertThat(store.list("__recovery/").block()).containsExactly("__recovery/01.json", "__recovery/02.json");
        assertThat(store.list("nothing/").block()).isEmpty();
        assertThat(store.list("").block()).contains("_schema.pg", "__recovery/01.json").noneMatch(k -> k.contains("#"));
    }

    @Test
    void listObjectsGivesSizeAndModificationTimeAndNeverShowsTempFiles() throws Exception {
        store.put("t/data/a.lance", utf8("abc")).block();
        store.put("t/_versions/1.manifest", utf8("m")).block();
        Files.writeString(root.resolve("t/data/b.lance#1"), "in flight");
        java.time.Instant old = java.time.Instant.parse("2020-01-01T00:00:00Z");
        Files.setLastModifiedTime(root.resolve("t/data/a.lance"), java.nio.file.attribute.FileTime.from(old));
        assertThat(store.listObjects("t/").block()).containsExactly(
                new ObjectStore.StoredObject("t/_versions/1.manifest", 1,
                        Files.getLastModifiedTime(root.resolve("t/_versions/1.manifest")).toInstant()),
                new ObjectStore.StoredObject("t/data/a.lance", 3, old));
        assertThat(store.listObjects("nothing/").block()).isEmpty();
    }

    @Test
    void putLeavesNoTempFilesBehind() throws Exception {
        for (int i = 0; i < 20; i++) {
            store.put("state.json", utf8("v" + i)).block();
        }
        try (var files = Files.list(root)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactly("state.json");
        }
    }

    @Test
    void putIfAbsentHasExactlyOneWinner() {
        List<Boolean> outcomes = Flux.range(0, 16)
                .flatMap(i -> store.putIfAbsent("__init_claim.json", utf8("claim " + i)))
                .collectList().block();
        assertThat(outcomes).containsOnlyOnce(true).hasSize(16);
        String winner = new String(store.get("__init_claim.json").block().orElseThrow(), StandardCharsets.UTF_8);
        assertThat(winner).startsWith("claim ");
    }

    @Test
    void keysThatEscapeTheRootAreRefused() {
        for (String bad : List.of("../x", "/etc/passwd", "a/../../b", "a//b", "a/./b", "", "x#1", "a\\b", "a\u0000b")) {
            assertThatThrownBy(() -> store.put(bad, utf8("no")).block()).as(bad).isInstanceOf(BadRequest.class);
        }
        assertThat(root.getParent().resolve("x")).doesNotExist();
    }

    /**
     * I/O errors are not "absent". Provoked without permissions (tests may run as root, where those do not bite):
     * a key below a regular file (ENOTDIR) and a symlink loop (ELOOP).
     */
    @Test
    void existsAndListFailLoudlyOnIoErrorsInsteadOfAnsweringAbsent() throws Exception {
        Files.writeString(root.resolve("blocker"), "a file where a directory should be");
        Files.createSymbolicLink(root.resolve("loop"), root.resolve("loop"));
        Files.createSymbolicLink(root.resolve("dangling"), root.resolve("nowhere"));
        assertThatThrownBy(() -> store.exists("blocker/x.json").block()).isInstanceOf(StorageFault.class)
                .hasMessageContaining("exists");
        assertThatThrownBy(() -> store.exists("loop").block()).isInstanceOf(StorageFault.class);
        assertThatThrownBy(() -> store.list("blocker/").block()).isInstanceOf(StorageFault.class)
                .hasMessageContaining("not a directory");
        assertThatThrownBy(() -> store.list("blocker/sub/").block()).isInstanceOf(StorageFault.class);
        // A dangling link and a missing parent are plainly absent.
        assertThat(store.exists("dangling").block()).isFalse();
        assertThat(store.exists("missing/x.json").block()).isFalse();
        assertThat(store.exists("blocker").block()).isTrue();
    }
}

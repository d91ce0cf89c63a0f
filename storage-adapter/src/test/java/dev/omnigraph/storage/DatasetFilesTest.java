package dev.omnigraph.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.omnigraph.storage.ObjectStore.StoredObject;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** One listing of a dataset split by ref: the longest ref directory wins, and only Lance's own layout counts. */
class DatasetFilesTest {
    static final String UUID = "0c6f1e9a-1b2c-4d5e-8f90-123456789abc";

    static StoredObject object(String key) {
        return new StoredObject(key, 1, Instant.EPOCH);
    }

    @Test
    void keysGoToTheRefWithTheLongestDirectoryAndOnlyLancesLayoutCounts() {
        String v2 = Long.toUnsignedString(~3L) + ".manifest"; // Lance 7's naming of version 3
        List<LanceBranch> branches = List.of(new LanceBranch("a", Optional.empty(), 2, 0),
                new LanceBranch("a/b", Optional.of("a"), 3, 0));
        DatasetFiles files = DatasetFiles.of("t", branches, List.of(
                object("t/_versions/1.manifest"), object("t/_versions/" + v2), object("t/_versions/_latest.manifest"),
                object("t/data/x.lance"), object("t/data/x.tmp"), object("t/_deletions/1-2-3.arrow"),
                object("t/_transactions/2-" + UUID + ".txn"), object("t/_indices/" + UUID + "/index.idx"),
                object("t/_indices/" + UUID + "/part/aux.idx"), object("t/_indices/not-a-uuid/index.idx"),
                object("t/_refs/branches/a.json"), object("t/tree/orphan/data/o.lance"),
                object("t/tree/a/_versions/3.manifest"), object("t/tree/a/data/y.lance"),
                object("t/tree/a/b/_versions/4.manifest"), object("t/tree/a/b/data/z.lance"),
                object("t-other/data/w.lance")));

        var main = files.refs().get(Optional.<String>empty());
        assertThat(main.manifests()).containsOnlyKeys(1L, 3L);
        assertThat(main.data()).extracting(StoredObject::key).containsExactly("t/data/x.lance");
        assertThat(main.deletions()).extracting(StoredObject::key).containsExactly("t/_deletions/1-2-3.arrow");
        assertThat(main.transactions()).hasSize(1);
        assertThat(main.indexes()).containsOnlyKeys(UUID);
        assertThat(main.indexes().get(UUID)).hasSize(2);
        var a = files.refs().get(Optional.of("a"));
        assertThat(a.manifests()).containsOnlyKeys(3L);
        assertThat(a.data()).extracting(StoredObject::key).containsExactly("t/tree/a/data/y.lance");
        var ab = files.refs().get(Optional.of("a/b"));
        assertThat(ab.manifests()).containsOnlyKeys(4L);
        assertThat(ab.data()).extracting(StoredObject::key).containsExactly("t/tree/a/b/data/z.lance");
    }
}

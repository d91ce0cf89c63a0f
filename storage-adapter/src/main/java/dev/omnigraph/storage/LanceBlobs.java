package dev.omnigraph.storage;

import org.lance.BlobFile;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import dev.omnigraph.storage.error.BadRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Blob-encoded columns ({@link BlobEncoding}): a byte range of one blob by key, and the bytes of every blob a scan
 * returns descriptors for. Lance hands out a blob by its {@code _rowid} ({@code takeBlobs}), stable or not; the
 * descriptor of a NULL blob is a NULL struct (file format 2.1).
 */
final class LanceBlobs {
    static final String ROW_ID = "_rowid";
    static final String ROW_ADDRESS = "_rowaddr";
    /** The most bytes one range read returns (a Java array). */
    static final long MAX_RANGE = Integer.MAX_VALUE - 8;

    private LanceBlobs() {
    }

    /** The blob-encoded columns among {@code projected} (every column of {@code schema} when empty), in scan order. */
    static List<String> encodedAmong(Schema schema, List<String> projected) {
        List<String> out = new ArrayList<>();
        for (Field field : schema.getFields()) {
            if (BlobEncoding.isEncoded(field) && (projected.isEmpty() || projected.contains(field.getName()))) {
                out.add(field.getName());
            }
        }
        return out;
    }

    /**
     * The blob {@code column} of the row whose {@code keyColumn} is {@code key}: one filtered scan of the key, the
     * column and (blob-encoded) its row id, then only the bytes {@code window} picks. A plain {@code LargeBinary}
     * column (tables of earlier builds) has no descriptor: its whole value is read and sliced.
     */
    static BlobRead read(Dataset dataset, TableRef ref, BufferAllocator allocator, String keyColumn, String key,
                         String column, BlobWindow window) throws IOException {
        SqlLiterals.requireIdentifier(keyColumn);
        SqlLiterals.requireIdentifier(column);
        if (!SqlLiterals.pushable(key)) throw new BadRequest("key is too long to look up");
        Field field = dataset.getSchema().getFields().stream().filter(f -> f.getName().equals(column)).findFirst()
                .orElseThrow(() -> new BadRequest("the table has no column '" + column + "'"));
        boolean encoded = BlobEncoding.isEncoded(field);
        if (!encoded && !(field.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.LargeBinary)) {
            throw new BadRequest("column '" + column + "' is not a blob column");
        }
        ScanOptions options = new ScanOptions.Builder().filter(SqlLiterals.inList(keyColumn, List.of(key)))
                .columns(List.of(keyColumn, column)).withRowId(encoded).withRowAddress(encoded)
                .useScalarIndex(InheritedIndexes.usable(ref, allocator)).build();
        try (LanceScanner scanner = dataset.newScan(options); ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                VectorSchemaRoot batch = reader.getVectorSchemaRoot();
                VarCharVector keys = (VarCharVector) batch.getVector(keyColumn);
                for (int i = 0; i < batch.getRowCount(); i++) {
                    if (keys.isNull(i) || !key.equals(new String(keys.get(i), java.nio.charset.StandardCharsets.UTF_8))) continue;
                    FieldVector value = batch.getVector(column);
                    if (value.isNull(i)) return new BlobRead.NullBlob();
                    if (!encoded) return slice(((LargeVarBinaryVector) value).get(i), window);
                    long rowId = ((UInt8Vector) batch.getVector(ROW_ID)).get(i);
                    long address = ((UInt8Vector) batch.getVector(ROW_ADDRESS)).get(i);
                    return atHome(dataset, ref, allocator, address, home -> range(home, column, rowId, window));
                }
            }
        } catch (RuntimeException | IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("blob lookup failed: " + e.getMessage(), e);
        }
        return new BlobRead.NoRow();
    }

    private static BlobRead range(Dataset dataset, String column, long rowId, BlobWindow window) throws IOException {
        List<BlobFile> files = dataset.takeBlobs(List.of(rowId), column);
        try {
            if (files.size() != 1) throw new IOException("Lance returned " + files.size() + " blobs for one row id");
            BlobFile file = files.get(0);
            long size = file.size();
            Optional<BlobWindow.Span> span = window.within(size);
            if (span.isEmpty()) return new BlobRead.Unsatisfiable(size);
            long length = checked(span.get(), size);
            byte[] bytes = length == 0 ? new byte[0] : file.readRange(span.get().offset(), (int) length);
            return new BlobRead.Slice(size, span.get().offset(), bytes, bytes.length);
        } finally {
            closeAll(files);
        }
    }

    private static BlobRead slice(byte[] all, BlobWindow window) {
        Optional<BlobWindow.Span> span = window.within(all.length);
        if (span.isEmpty()) return new BlobRead.Unsatisfiable(all.length);
        long length = checked(span.get(), all.length);
        int from = (int) span.get().offset();
        return new BlobRead.Slice(all.length, from, java.util.Arrays.copyOfRange(all, from, from + (int) length), all.length);
    }

    private static long checked(BlobWindow.Span span, long size) {
        if (span.offset() + span.length() > size) {
            throw new IllegalArgumentException("blob window " + span + " exceeds the blob's " + size + " bytes");
        }
        if (span.length() > MAX_RANGE) {
            throw new BadRequest("a blob range of " + span.length() + " bytes is too large to read at once; ask for at most "
                    + MAX_RANGE + " bytes");
        }
        return span.length();
    }

    /**
     * The rows of a scanned batch, each blob-encoded column's descriptor replaced by the blob's bytes (fetched per
     * column with one {@code takeBlobs} of the batch's non-NULL row ids), and the {@code _rowid} column the fetch
     * and {@code _rowaddr} the fetch needed dropped (a {@link ScanRequest} never asks for the row id; it may for the
     * address: {@code keepAddress}).
     */
    static List<Map<String, Object>> rowsWithBytes(Dataset dataset, TableRef ref, BufferAllocator allocator,
                                                   VectorSchemaRoot root, List<String> blobColumns, boolean keepAddress)
            throws IOException {
        int rows = root.getRowCount();
        UInt8Vector rowIds = (UInt8Vector) root.getVector(ROW_ID);
        UInt8Vector addresses = (UInt8Vector) root.getVector(ROW_ADDRESS);
        Map<String, byte[][]> bytes = new HashMap<>();
        for (String column : blobColumns) {
            FieldVector descriptors = root.getVector(column);
            List<Integer> at = new ArrayList<>();
            List<long[]> wanted = new ArrayList<>();
            for (int i = 0; i < rows; i++) {
                if (!descriptors.isNull(i)) {
                    at.add(i);
                    wanted.add(new long[] {rowIds.get(i), addresses.get(i)});
                }
            }
            byte[][] values = new byte[rows][];
            byte[][] found = wanted.isEmpty() ? new byte[0][] : bytesOf(dataset, ref, allocator, column, wanted);
            for (int k = 0; k < found.length; k++) values[at.get(k)] = found[k];
            bytes.put(column, values);
        }
        Set<String> blobs = Set.copyOf(blobColumns);
        List<FieldVector> vectors = root.getFieldVectors();
        List<Map<String, Object>> out = new ArrayList<>(rows);
        for (int i = 0; i < rows; i++) {
            Map<String, Object> row = new LinkedHashMap<>(vectors.size() * 2);
            for (FieldVector vector : vectors) {
                String name = vector.getName();
                if (blobs.contains(name)) row.put(name, bytes.get(name)[i]);
                else if (!name.equals(ROW_ID) && (keepAddress || !name.equals(ROW_ADDRESS))) {
                    row.put(name, ArrowRows.valueAt(vector, i));
                }
            }
            out.add(java.util.Collections.unmodifiableMap(row));
        }
        return out;
    }

    /**
     * The bytes of the blobs {@code wanted} ({row id, row address} pairs) of {@code column}, in order. Lance 7's
     * {@code takeBlobs} reads a fragment's file from the dataset's own data directory, even for a fragment a Lance
     * branch inherited from its parent (whose file lives there): those are read from the parent at the fork version,
     * where the fragment, its row ids and its addresses are the same.
     */
    private static byte[][] bytesOf(Dataset dataset, TableRef ref, BufferAllocator allocator, String column,
                                    List<long[]> wanted) throws IOException {
        Set<Integer> inherited = inheritedFragments(dataset, ref);
        List<Integer> own = new ArrayList<>();
        List<Integer> borrowed = new ArrayList<>();
        for (int k = 0; k < wanted.size(); k++) {
            (inherited.contains((int) (wanted.get(k)[1] >>> 32)) ? borrowed : own).add(k);
        }
        byte[][] out = new byte[wanted.size()][];
        if (!own.isEmpty()) {
            List<BlobFile> files = dataset.takeBlobs(own.stream().map(k -> wanted.get(k)[0]).toList(), column);
            try {
                if (files.size() != own.size()) {
                    throw new IOException("Lance returned " + files.size() + " blobs for " + own.size() + " row ids");
                }
                for (int j = 0; j < files.size(); j++) {
                    BlobFile file = files.get(j);
                    out[own.get(j)] = file.size() == 0 ? new byte[0] : file.read();
                }
            } finally {
                closeAll(files);
            }
        }
        if (!borrowed.isEmpty()) {
            TableRef parent = parentOf(ref, allocator);
            try (Dataset home = LanceDatasets.open(allocator, parent, LanceDatasets.forkOf(ref, allocator))) {
                byte[][] found = bytesOf(home, parent, allocator, column, borrowed.stream().map(wanted::get).toList());
                for (int j = 0; j < found.length; j++) out[borrowed.get(j)] = found[j];
            }
        }
        return out;
    }

    /** Runs {@code work} on the dataset whose own data directory holds the fragment of {@code address} (see bytesOf). */
    private static <T> T atHome(Dataset dataset, TableRef ref, BufferAllocator allocator, long address,
                                BlobWork<T> work) throws IOException {
        if (!inheritedFragments(dataset, ref).contains((int) (address >>> 32))) return work.apply(dataset);
        TableRef parent = parentOf(ref, allocator);
        try (Dataset home = LanceDatasets.open(allocator, parent, LanceDatasets.forkOf(ref, allocator))) {
            return atHome(home, parent, allocator, address, work);
        }
    }

    /** The fragments of a branch's dataset whose files live under another base (inherited at the fork). */
    private static Set<Integer> inheritedFragments(Dataset dataset, TableRef ref) {
        if (ref.branch().isEmpty()) return Set.of();
        Set<Integer> out = new java.util.HashSet<>();
        dataset.getFragments().forEach(fragment -> {
            if (fragment.metadata().getFiles().stream().anyMatch(file -> file.getBaseId().isPresent())) {
                out.add(fragment.getId());
            }
        });
        return out;
    }

    private static TableRef parentOf(TableRef ref, BufferAllocator allocator) {
        String name = ref.branch().orElseThrow();
        Optional<String> parent = LanceDatasets.branchesOf(ref.path(), allocator).stream()
                .filter(branch -> branch.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalStateException("branch " + name + " of " + ref.path() + " is gone"))
                .parentBranch();
        return new TableRef(ref.path(), parent);
    }

    @FunctionalInterface
    private interface BlobWork<T> {
        T apply(Dataset home) throws IOException;
    }

    private static void closeAll(List<BlobFile> files) throws IOException {
        IOException first = null;
        for (BlobFile file : files) {
            try {
                file.close();
            } catch (IOException e) {
                if (first == null) first = e;
            }
        }
        if (first != null) throw first;
    }
}

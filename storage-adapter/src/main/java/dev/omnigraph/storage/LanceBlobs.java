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
    static BlobRead read(Dataset dataset, String keyColumn, String key, String column, BlobWindow window)
            throws IOException {
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
                .columns(List.of(keyColumn, column)).withRowId(encoded).build();
        try (LanceScanner scanner = dataset.newScan(options); ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                VectorSchemaRoot batch = reader.getVectorSchemaRoot();
                VarCharVector keys = (VarCharVector) batch.getVector(keyColumn);
                for (int i = 0; i < batch.getRowCount(); i++) {
                    if (keys.isNull(i) || !key.equals(new String(keys.get(i), java.nio.charset.StandardCharsets.UTF_8))) continue;
                    FieldVector value = batch.getVector(column);
                    if (value.isNull(i)) return new BlobRead.NullBlob();
                    return encoded ? range(dataset, column, ((UInt8Vector) batch.getVector(ROW_ID)).get(i), window)
                            : slice(((LargeVarBinaryVector) value).get(i), window);
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
     * needed dropped (a {@link ScanRequest} never asks for it).
     */
    static List<Map<String, Object>> rowsWithBytes(Dataset dataset, VectorSchemaRoot root, List<String> blobColumns)
            throws IOException {
        int rows = root.getRowCount();
        UInt8Vector rowIds = (UInt8Vector) root.getVector(ROW_ID);
        Map<String, byte[][]> bytes = new HashMap<>();
        for (String column : blobColumns) {
            FieldVector descriptors = root.getVector(column);
            List<Integer> at = new ArrayList<>();
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < rows; i++) {
                if (!descriptors.isNull(i)) {
                    at.add(i);
                    ids.add(rowIds.get(i));
                }
            }
            byte[][] values = new byte[rows][];
            if (!ids.isEmpty()) {
                List<BlobFile> files = dataset.takeBlobs(ids, column);
                try {
                    if (files.size() != ids.size()) {
                        throw new IOException("Lance returned " + files.size() + " blobs for " + ids.size() + " row ids");
                    }
                    for (int k = 0; k < files.size(); k++) {
                        BlobFile file = files.get(k);
                        values[at.get(k)] = file.size() == 0 ? new byte[0] : file.read();
                    }
                } finally {
                    closeAll(files);
                }
            }
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
                else if (!name.equals(ROW_ID)) row.put(name, ArrowRows.valueAt(vector, i));
            }
            out.add(java.util.Collections.unmodifiableMap(row));
        }
        return out;
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

package dev.omnigraph.storage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.index.IndexDescription;
import org.lance.index.scalar.InvertedIndexParams;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.ipc.FullTextQuery;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import reactor.core.publisher.Mono;

/**
 * Full-text queries through Lance's inverted index (BM25 with k1 = 1.2, b = 0.75; fragments appended after the build
 * are searched flat by Lance, deleted rows are never returned). An index is used only when its tokenizer is the
 * engine's ({@link #PARAMS}): one built with other settings (the engine's earlier ones kept stop words) would split
 * text differently from the exact path, so it answers "no usable index" and the caller evaluates exactly.
 */
final class LanceFullText {
    /** The tokenizer of the inverted indexes the engine builds (the engine's own Tokenizer splits text the same way). */
    static final ScalarIndexParams PARAMS = InvertedIndexParams.builder().baseTokenizer("simple").language("English")
            .withPosition(false).lowerCase(true).stem(false).removeStopWords(true).asciiFolding(false)
            .maxTokenLength(40).build();
    /** The settings of {@link #PARAMS} an index's details must show to be usable. */
    private static final Map<String, Object> REQUIRED = Map.of("base_tokenizer", "simple", "language", "English",
            "lower_case", true, "stem", false, "remove_stop_words", true, "ascii_folding", false,
            "max_token_length", 40);
    /** Terms a fuzzy term may expand to; large, so a fuzzy candidate set is never cut short. */
    private static final int MAX_EXPANSIONS = 10_000;
    /** Lance's BM25 score column. */
    static final String SCORE = "_score";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final LanceDatasets datasets;

    LanceFullText(LanceDatasets datasets) {
        this.datasets = datasets;
    }

    Mono<Optional<List<Map<String, Object>>>> search(TableSnapshot snapshot, String indexName, FullTextRequest request) {
        return datasets.with("fullText", snapshot.ref(), OptionalLong.of(snapshot.version()), (dataset, allocator) -> {
            if (!InheritedIndexes.usable(snapshot.ref(), allocator) || !usable(dataset, indexName)) {
                return Optional.<List<Map<String, Object>>>empty();
            }
            return Optional.of(rows(snapshot.ref(), dataset, request));
        });
    }

    /** Whether {@code dataset} has inverted index {@code name} built with the engine's tokenizer. */
    static boolean usable(Dataset dataset, String name) {
        for (IndexDescription d : dataset.describeIndices()) {
            if (d.getName().equals(name)) {
                return "Inverted".equalsIgnoreCase(d.getIndexType()) && current(d.getDetailsJson());
            }
        }
        return false;
    }

    static boolean current(String detailsJson) {
        if (detailsJson == null || detailsJson.isBlank()) {
            return false;
        }
        try {
            JsonNode details = JSON.readTree(detailsJson);
            for (Map.Entry<String, Object> e : REQUIRED.entrySet()) {
                JsonNode v = details.get(e.getKey());
                Object want = e.getValue();
                boolean same = v != null && (want instanceof Boolean b ? v.isBoolean() && v.booleanValue() == b
                        : want instanceof Integer i ? v.isInt() && v.intValue() == i : v.asText().equals(want));
                if (!same) {
                    return false;
                }
            }
            JsonNode custom = details.get("custom_stop_words");
            return custom == null || custom.isNull();
        } catch (Exception e) {
            return false;
        }
    }

    private static List<Map<String, Object>> rows(TableRef ref, Dataset dataset, FullTextRequest request) {
        FullTextQuery query = switch (request.match()) {
            case ANY -> FullTextQuery.match(request.terms(), request.column(), 1f, Optional.empty(), MAX_EXPANSIONS,
                    FullTextQuery.Operator.OR, 0);
            case ALL -> FullTextQuery.match(request.terms(), request.column(), 1f, Optional.empty(), MAX_EXPANSIONS,
                    FullTextQuery.Operator.AND, 0);
            case FUZZY_ALL -> FullTextQuery.match(request.terms(), request.column(), 1f,
                    Optional.of(request.fuzziness()), MAX_EXPANSIONS, FullTextQuery.Operator.AND, 0);
        };
        ScanOptions.Builder options = new ScanOptions.Builder().fullTextQuery(query)
                .batchSize(request.limit() > 0 ? Math.max(request.limit(), 1024) : ScanRequest.DEFAULT_BATCH_SIZE);
        if (request.limit() > 0) {
            options.limit(request.limit());
        }
        if (!request.columns().isEmpty()) {
            List<String> columns = new ArrayList<>(request.columns());
            if (!columns.contains(SCORE)) {
                columns.add(SCORE); // asked for by name: Lance's automatic projection of it is deprecated
            }
            options.columns(columns);
        }
        List<Map<String, Object>> out = new ArrayList<>();
        Set<Object> ids = new HashSet<>();
        try (LanceScanner scanner = dataset.newScan(options.build()); ArrowReader reader = scanner.scanBatches()) {
            while (reader.loadNextBatch()) {
                for (Map<String, Object> row : ArrowRows.read(reader.getVectorSchemaRoot())) {
                    // A batch misread by the Arrow import (a slice read from its start) would repeat rows.
                    Object id = row.get("id");
                    if (id != null && !ids.add(id)) {
                        throw new dev.omnigraph.storage.error.StorageFault("full-text search on "
                                + request.column() + " returned row " + id + " twice", null);
                    }
                    out.add(row);
                }
            }
        } catch (dev.omnigraph.storage.error.StorageFault e) {
            throw e;
        } catch (Exception e) {
            throw LanceFailures.translate("fullText", ref, e);
        }
        return out;
    }
}

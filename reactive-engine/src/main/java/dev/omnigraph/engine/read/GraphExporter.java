package dev.omnigraph.engine.read;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.omnigraph.engine.schema.BlobText;
import dev.omnigraph.engine.schema.Catalog;
import dev.omnigraph.engine.schema.CatalogTable;
import dev.omnigraph.engine.schema.EdgeTable;
import dev.omnigraph.engine.schema.NodeTable;
import dev.omnigraph.engine.schema.Property;
import dev.omnigraph.engine.schema.PropertyType;
import dev.omnigraph.engine.schema.ScalarKind;
import dev.omnigraph.storage.ScanRequest;
import dev.omnigraph.storage.TableStorage;
import dev.omnigraph.storage.error.BadRequest;
import dev.omnigraph.storage.manifest.ManifestState;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * Exports a pinned snapshot as NDJSON in the strict load format (languages §4.1): every node table, then every edge
 * table, each in type-name order and each table in storage order, streamed on demand. Nodes are
 * {@code {"type":T,"data":{"id":…,props}}}, edges {@code {"edge":E,"from":src,"to":dst,"data":{"id":…,props}}}.
 * The {@code id} is always written: a loader keeps it for unkeyed nodes and edges, and for keyed nodes it equals the
 * id the loader derives. Values use the load encodings (§4.3): Date as {@code "YYYY-MM-DD"}, DateTime as an ISO-8601
 * UTC string with milliseconds when non-zero (epoch days / epoch milliseconds outside years 0–9999, which ISO
 * strings cannot carry), U64 as its unsigned integer, lists and vectors as arrays; NULLs are omitted.
 */
public final class GraphExporter {
    private static final JsonFactory JSON = JsonFactory.builder().build();

    private final TableStorage tables;
    private final String root;
    private final Catalog catalog;

    public GraphExporter(TableStorage tables, String root, Catalog catalog) {
        this.tables = tables;
        this.root = root;
        this.catalog = catalog;
    }

    /**
     * NDJSON lines in the load format (nodes first, then edges), optionally limited to some type names.
     *
     * @param typeNames node and edge type names to export (edge names match ignoring case, as in the load format);
     *                  null or empty exports every type
     * @throws BadRequest naming a type the schema does not declare
     */
    public Flux<String> export(ManifestState state, Set<String> typeNames) {
        List<CatalogTable> selected = select(typeNames == null ? Set.of() : typeNames);
        TableReader reader = new TableReader(tables, root, state);
        return Flux.fromIterable(selected)
                // A type the snapshot does not carry (added by a later schema) has no rows to export.
                .filter(t -> state.table(t.tableKey()).isPresent())
                .concatMap(t -> reader.scan(t, null, Layout.storedColumns(t), ScanRequest.DEFAULT_BATCH_SIZE)
                        .map(row -> line(t, row)))
                .publishOn(Schedulers.parallel()); // keep consumers off the storage threads
    }

    private List<CatalogTable> select(Set<String> names) {
        Set<String> unknown = names.stream()
                .filter(n -> catalog.node(n).isEmpty() && catalog.edges().keySet().stream().noneMatch(e -> e.equalsIgnoreCase(n)))
                .collect(Collectors.toCollection(java.util.TreeSet::new));
        if (!unknown.isEmpty()) throw new BadRequest("cannot export unknown type(s) " + unknown);
        Set<String> folded = names.stream().map(n -> n.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
        List<CatalogTable> out = new ArrayList<>();
        for (NodeTable n : catalog.nodes().values()) if (names.isEmpty() || names.contains(n.typeName())) out.add(n);
        for (EdgeTable e : catalog.edges().values())
            if (names.isEmpty() || folded.contains(e.typeName().toLowerCase(Locale.ROOT))) out.add(e);
        return out;
    }

    static String line(CatalogTable table, Map<String, Object> row) {
        StringWriter out = new StringWriter(128);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            List<Property> props;
            if (table instanceof EdgeTable e) {
                g.writeStringField("edge", e.typeName());
                g.writeStringField("from", (String) row.get("src"));
                g.writeStringField("to", (String) row.get("dst"));
                props = e.type().properties();
            } else {
                g.writeStringField("type", table.typeName());
                props = ((NodeTable) table).type().properties();
            }
            g.writeObjectFieldStart("data");
            g.writeStringField("id", (String) row.get("id"));
            for (Property p : props) {
                Object v = row.get(p.name());
                if (v == null) continue;
                g.writeFieldName(p.name());
                value(g, p.type(), v);
            }
            g.writeEndObject();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does no I/O
        }
        return out.toString();
    }

    private static void value(JsonGenerator g, PropertyType type, Object v) throws IOException {
        if (type instanceof PropertyType.EnumOf) {
            g.writeString((String) v);
        } else if (type instanceof PropertyType.Scalar s) {
            scalar(g, s.kind(), v);
        } else if (type instanceof PropertyType.ListOf l) {
            g.writeStartArray();
            for (Object item : (List<?>) v) scalar(g, l.element(), item);
            g.writeEndArray();
        } else {
            g.writeStartArray();
            for (Object item : (List<?>) v) g.writeNumber((Float) item);
            g.writeEndArray();
        }
    }

    private static void scalar(JsonGenerator g, ScalarKind kind, Object v) throws IOException {
        switch (kind) {
            case STRING -> g.writeString((String) v);
            case BLOB -> g.writeString(BlobText.encode((byte[]) v));
            case BOOL -> g.writeBoolean((Boolean) v);
            case I32 -> g.writeNumber((Integer) v);
            case I64, U32 -> g.writeNumber((Long) v);
            case U64 -> g.writeNumber(new BigInteger(Long.toUnsignedString((Long) v)));
            case F32 -> g.writeNumber((Float) v);
            case F64 -> g.writeNumber((Double) v);
            case DATE -> {
                LocalDate d = (LocalDate) v;
                if (d.getYear() >= 0 && d.getYear() <= 9999) g.writeString(d.toString());
                else g.writeNumber(d.toEpochDay());
            }
            case DATETIME -> {
                Instant i = (Instant) v;
                if (ValueText.hasIsoText(i)) g.writeString(ValueText.dateTime(i));
                else g.writeNumber(i.toEpochMilli());
            }
        }
    }
}

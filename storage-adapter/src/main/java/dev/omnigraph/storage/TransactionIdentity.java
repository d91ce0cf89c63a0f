package dev.omnigraph.storage;

import org.lance.Transaction;
import java.util.Map;

/**
 * The identity of one Lance transaction: the version it was planned against, its uuid, and the intent id a writer
 * stored with it as the transaction property {@link #INTENT_PROPERTY} (null when none). A commit is exact when it
 * lands at {@code readVersion + 1} carrying this uuid. Lance mints the uuid only once the transaction is built (after
 * its files are written); the intent id is minted by the writer before staging, so a sidecar can name the
 * transaction before it exists.
 */
public record TransactionIdentity(long readVersion, String uuid, String intent) {
    /** The transaction property that carries a writer's pre-minted intent id. */
    public static final String INTENT_PROPERTY = "omnigraph.intent";

    public TransactionIdentity(long readVersion, String uuid) {
        this(readVersion, uuid, null);
    }

    /** What Lance recorded for {@code transaction}, read the one way every caller reads it. */
    static TransactionIdentity of(Transaction transaction) {
        String intent = transaction.transactionProperties().map(properties -> properties.get(INTENT_PROPERTY)).orElse(null);
        return new TransactionIdentity(transaction.readVersion(), transaction.uuid(), intent);
    }

    /** {@code properties} with {@code intent} stored as {@link #INTENT_PROPERTY}. */
    public static Map<String, String> withIntent(Map<String, String> properties, String intent) {
        Map<String, String> with = new java.util.LinkedHashMap<>(properties);
        with.put(INTENT_PROPERTY, intent);
        return Map.copyOf(with);
    }
}

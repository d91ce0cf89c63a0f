package dev.omnigraph.storage;

import org.lance.Dataset;
import org.lance.Transaction;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.BufferAllocator;

/**
 * A staged transaction plus the open dataset it was built from (Lance commits a transaction through the
 * dataset object it came from) and the allocator both use. Closing releases all three; it is spent once.
 */
final class LanceStagedHandle implements StagedHandle {
    private final TableRef ref;
    private final BufferAllocator allocator;
    private final Dataset dataset;
    private final Transaction transaction;
    private final TransactionIdentity identity;
    private final OptionalLong rowDelta;
    private final AtomicBoolean spent = new AtomicBoolean();

    LanceStagedHandle(TableRef ref, BufferAllocator allocator, Dataset dataset, Transaction transaction,
                      OptionalLong rowDelta) {
        this.ref = ref;
        this.allocator = allocator;
        this.dataset = dataset;
        this.transaction = transaction;
        this.identity = TransactionIdentity.of(transaction);
        this.rowDelta = rowDelta;
    }

    @Override
    public OptionalLong rowDelta() {
        return rowDelta;
    }

    @Override
    public TableRef ref() {
        return ref;
    }

    @Override
    public TransactionIdentity identity() {
        return identity;
    }

    @Override
    public String operation() {
        return transaction.operation().name();
    }

    @Override
    public boolean spent() {
        return spent.get();
    }

    /** Claims the handle for its one commit or discard; false when it was already spent. */
    boolean claim() {
        return spent.compareAndSet(false, true);
    }

    Transaction transaction() {
        return transaction;
    }

    BufferAllocator allocator() {
        return allocator;
    }

    /** The dataset the transaction was staged on: Lance commits it through this object. */
    Dataset dataset() {
        return dataset;
    }

    /** Frees the dataset and allocator; the staged files stay on disk as reclaimable garbage. */
    void release() {
        try {
            transaction.close(); // frees what the operation holds natively (an Overwrite's exported schema)
        } finally {
            try {
                dataset.close();
            } finally {
                allocator.close();
            }
        }
    }

    @Override
    public String toString() {
        return operation() + "@" + ref + " " + identity;
    }
}

package dev.omnigraph.storage;

import java.util.Optional;

/**
 * One version's transaction as a chain check needs it: its identity and the value its writer stored under one
 * transaction property (a pre-minted chunk mark). Empty mark when the property is absent.
 */
public record TransactionMark(long version, TransactionIdentity identity, Optional<String> mark) {
}

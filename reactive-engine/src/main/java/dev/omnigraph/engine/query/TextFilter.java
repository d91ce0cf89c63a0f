package dev.omnigraph.engine.query;

import dev.omnigraph.engine.query.ReadPlan.Operand;
import dev.omnigraph.engine.query.ReadPlan.PropertyRef;

/**
 * A full-text match clause on one String property: {@code search} (every query token occurs), {@code fuzzy} (every
 * query token is within {@code distance} edits of a token of the text) or {@code match_text} (the query's tokens
 * occur consecutively, in order). {@code distance} is null except for fuzzy with a written distance. A NULL text
 * never matches.
 */
public record TextFilter(Op op, PropertyRef field, Operand query, Operand distance) {
    public enum Op {
        SEARCH("search"),
        FUZZY("fuzzy"),
        MATCH_TEXT("match_text");

        private final String keyword;

        Op(String keyword) {
            this.keyword = keyword;
        }

        public String keyword() {
            return keyword;
        }
    }
}

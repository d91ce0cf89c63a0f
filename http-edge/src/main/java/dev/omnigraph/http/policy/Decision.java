package dev.omnigraph.http.policy;

import java.util.List;

/**
 * A policy's answer. {@code rules} are the ids of the rules that decided it (the permits that allowed it, or the
 * forbids that denied it; empty when nothing allowed it): for {@code policy explain} and the server log, never for
 * a client.
 */
public record Decision(boolean allowed, List<String> rules, String reason) {
    public static final Decision ALLOW_ALL = new Decision(true, List.of(), "no policy is configured");

    public static Decision deny(String reason) {
        return new Decision(false, List.of(), reason);
    }
}

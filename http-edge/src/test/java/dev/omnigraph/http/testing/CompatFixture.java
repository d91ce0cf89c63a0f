package dev.omnigraph.http.testing;

/** The graph, queries and data of the upstream-compatibility tests of the CLI and the HTTP routes. */
public final class CompatFixture {
    private CompatFixture() {
    }

    public static final String SCHEMA = """
            node Person {
                name: String @key
                age: I32?
                status: enum(active, retired)?
                seen: DateTime?
            }
            node Company {
                name: String @key
            }
            edge Knows: Person -> Person
            edge WorksAt: Person -> Company
            """;
    public static final String QUERIES = """
            query people() { match { $p: Person } return { $p.name, $p.seen } order { $p.name } }
            query insertThenUpdate($n: String) {
                insert Person { name: $n, age: 10 }
                update Person set { age: 11 } where name = $n
            }
            query setStatus($name: String, $s: String) { update Person set { status: $s } where name = $name }
            query addPair($a: String, $b: String) {
                insert Person { name: $a }
                insert Person { name: $b }
                insert Knows { from: $a, to: $b }
            }
            """;
    public static final String DATA = String.join("\n",
            "{\"type\":\"Person\",\"data\":{\"name\":\"Ada\",\"seen\":\"2026-04-01T08:30:00Z\"}}",
            "{\"type\":\"Person\",\"data\":{\"name\":\"Bob\"}}",
            "{\"type\":\"Company\",\"data\":{\"name\":\"Acme\"}}",
            "{\"edge\":\"Knows\",\"from\":\"Ada\",\"to\":\"Bob\"}",
            "{\"edge\":\"WorksAt\",\"from\":\"Ada\",\"to\":\"Acme\"}",
            "{\"edge\":\"WorksAt\",\"from\":\"Bob\",\"to\":\"Acme\"}") + "\n";
}

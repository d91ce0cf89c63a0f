package dev.omnigraph.spark;

import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark side of {@link SparkCommitReadTest}, run in a child JVM whose Lance is the connector's own (4.0.0).
 * Arguments: groups of five — a label, the Person dataset and version, the Knows dataset and version. For each
 * group it prints {@code <label> persons <n>}, {@code <label> knows <n>} and one {@code <label> pair <from>-><to>}
 * per edge joined to its endpoint nodes, in name order.
 */
public final class SparkJoinMain {
    private SparkJoinMain() {
    }

    public static void main(String[] args) {
        SparkSession spark = SparkSession.builder().master("local[1]").appName("omnigraph-commit-read")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "1")
                .config("spark.driver.host", "127.0.0.1")
                .getOrCreate();
        try {
            for (int i = 0; i + 4 < args.length; i += 5) {
                String label = args[i];
                // tag::spark-read[]
                spark.read().format("lance").option("version", args[i + 2]).load(args[i + 1])
                        .createOrReplaceTempView("person");
                spark.read().format("lance").option("version", args[i + 4]).load(args[i + 3])
                        .createOrReplaceTempView("knows");
                List<Row> pairs = spark.sql("""
                        SELECT a.name AS from_name, b.name AS to_name
                        FROM knows k JOIN person a ON k.src = a.id JOIN person b ON k.dst = b.id
                        ORDER BY from_name, to_name""").collectAsList();
                // end::spark-read[]
                System.out.println(label + " persons " + spark.table("person").count());
                System.out.println(label + " knows " + spark.table("knows").count());
                for (Row pair : pairs) {
                    System.out.println(label + " pair " + pair.getString(0) + "->" + pair.getString(1));
                }
            }
        } finally {
            spark.stop();
        }
    }
}

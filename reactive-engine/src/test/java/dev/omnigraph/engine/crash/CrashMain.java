package dev.omnigraph.engine.crash;

import dev.omnigraph.engine.OpenMode;
import dev.omnigraph.engine.Omnigraph;
import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.storage.root.GraphRoot;

/**
 * Child-JVM side of the crash matrix: opens the graph read-write (running recovery, which may itself hit an
 * armed failpoint) and runs one scenario, with failpoints armed from {@code OMNIGRAPH_FAILPOINTS}. A failpoint
 * armed as {@code exit} halts the JVM with 137; reaching the end prints DONE and exits 0.
 */
public final class CrashMain {
    public static void main(String[] args) {
        GraphRoot root = GraphRoot.parse(args[0]); // a path, or s3://… with S3 settings from the environment
        String scenario = args[1];
        try (StorageServices services = StorageServices.create()) {
            Omnigraph graph = Omnigraph.open(services, root, OpenMode.READ_WRITE).block();
            if (!scenario.equals("OPEN")) {
                try {
                    CrashScenario.valueOf(scenario).run(graph).block();
                } catch (RuntimeException failed) {
                    System.out.println("FAILED " + failed);
                }
            }
            System.out.println("DONE");
        }
        System.exit(0);
    }
}

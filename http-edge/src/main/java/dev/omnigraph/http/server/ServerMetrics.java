package dev.omnigraph.http.server;

import dev.omnigraph.engine.StorageServices;
import dev.omnigraph.storage.CountingObjectStore;
import dev.omnigraph.storage.CountingTableStorage;
import dev.omnigraph.storage.StorageCallCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The server's one meter registry, scraped as Prometheus text by {@code GET /metrics}: the served graphs' engine
 * meters (every handle opens with it), JVM and process meters, and Reactor Netty's HTTP server meters (which
 * Reactor Netty records into Micrometer's global registry, so this registry joins it while the server runs).
 */
final class ServerMetrics implements AutoCloseable {
    /** The Prometheus text exposition format, version 0.0.4. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gc = new JvmGcMetrics();

    ServerMetrics() {
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        Metrics.addRegistry(registry);
    }

    MeterRegistry registry() {
        return registry;
    }

    /** Every meter in the text format {@link #CONTENT_TYPE} names. */
    String scrape() {
        return registry.scrape(CONTENT_TYPE);
    }

    /**
     * {@code services} with table and object-store calls counted once for every graph the server opens (the
     * builder then does not wrap them again), so {@code omnigraph_storage_calls} adds up across handles.
     */
    static StorageServices counted(StorageServices services) {
        if (services.tables() instanceof CountingTableStorage) {
            return services;
        }
        StorageCallCounter counter = new StorageCallCounter();
        return new StorageServices(services.scheduler(), new CountingTableStorage(services.tables(), counter),
                store -> new CountingObjectStore(services.objectStores().apply(store), counter));
    }

    @Override
    public void close() {
        Metrics.removeRegistry(registry);
        gc.close();
        registry.close();
    }
}

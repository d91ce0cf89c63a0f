package dev.omnigraph.storage;

import dev.omnigraph.storage.error.StorageOverloaded;
import java.util.concurrent.Callable;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The only place blocking storage work (Lance/JNI calls, file I/O) may run: a bounded elastic scheduler with
 * capped threads and a capped queue, threads named {@code omnigraph-storage-*}.
 *
 * <p>Native Lance calls cannot be interrupted, so {@link #call} never interrupts a running task: a task that
 * has started always runs to completion (its result is discarded, and closed if closeable, when the subscriber
 * has gone). A task cancelled before it starts never runs. This is what lets a writer release its gates only
 * after its in-flight storage call has finished.
 */
public final class StorageScheduler implements AutoCloseable {
    public static final String THREAD_PREFIX = "omnigraph-storage";
    static final int DEFAULT_QUEUE_CAP = 100_000;

    private final Scheduler scheduler;
    private final int threadCap;

    private StorageScheduler(int threadCap, int queueCap) {
        this.threadCap = threadCap;
        this.scheduler = Schedulers.newBoundedElastic(threadCap, queueCap, THREAD_PREFIX, 60, true);
    }

    /** Threads default to {@code max(4, 2 × cores)}; override with {@code OMNIGRAPH_STORAGE_THREADS}. */
    public static StorageScheduler create() {
        return create(configuredThreads(), DEFAULT_QUEUE_CAP);
    }

    public static StorageScheduler create(int threadCap, int queueCap) {
        if (threadCap < 1 || queueCap < 1) {
            throw new IllegalArgumentException("storage scheduler needs at least one thread and one queue slot");
        }
        return new StorageScheduler(threadCap, queueCap);
    }

    private static int configuredThreads() {
        String value = System.getenv("OMNIGRAPH_STORAGE_THREADS");
        if (value != null && !value.isBlank()) {
            try {
                return Math.max(1, Integer.parseInt(value.trim()));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("OMNIGRAPH_STORAGE_THREADS must be a positive integer, got '" + value + "'");
            }
        }
        return Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
    }

    public int threadCap() {
        return threadCap;
    }

    /** The underlying Reactor scheduler, for operators such as {@code subscribeOn} in streaming reads. */
    public Scheduler scheduler() {
        return scheduler;
    }

    /** Runs {@code work} on a storage thread. See the class comment for cancellation. */
    public <T> Mono<T> call(Callable<T> work) {
        return Mono.create(sink -> {
            AtomicBoolean cancelled = new AtomicBoolean();
            sink.onCancel(() -> cancelled.set(true));
            try {
                scheduler.schedule(() -> {
                    if (cancelled.get()) {
                        return;
                    }
                    T result;
                    try {
                        result = work.call();
                    } catch (Throwable failure) {
                        sink.error(failure);
                        return;
                    }
                    if (cancelled.get()) {
                        closeQuietly(result);
                    } else if (result == null) {
                        sink.success();
                    } else {
                        sink.success(result);
                    }
                });
            } catch (RejectedExecutionException full) {
                sink.error(new StorageOverloaded("storage scheduler queue is full; the call was not started", full));
            }
        });
    }

    /** Runs a task with no result on a storage thread; same cancellation rules as {@link #call}. */
    public Mono<Void> run(ThrowingRunnable work) {
        return this.<Void>call(() -> {
            work.run();
            return null;
        });
    }

    /** Runs {@code cleanup} on a storage thread without waiting (used when a stream is cancelled from elsewhere). */
    public void schedule(Runnable cleanup) {
        try {
            scheduler.schedule(cleanup);
        } catch (RejectedExecutionException full) {
            cleanup.run();
        }
    }

    /** True on a thread of a storage scheduler. The seam asserts this before every Lance call. */
    public static boolean onStorageThread() {
        return Thread.currentThread().getName().startsWith(THREAD_PREFIX + "-");
    }

    /** Fails fast when Lance would be entered from any other thread (BlockHound cannot see inside JNI). */
    public static void requireStorageThread(String operation) {
        if (!onStorageThread()) {
            throw new IllegalStateException(operation + " must run on an " + THREAD_PREFIX
                    + " thread, not on " + Thread.currentThread().getName());
        }
    }

    private static void closeQuietly(Object value) {
        if (value instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception ignored) {
                // The subscriber is gone; nobody can act on a close failure of a discarded result.
            }
        }
    }

    @Override
    public void close() {
        scheduler.dispose();
    }

    /** A blocking action that may throw. */
    @FunctionalInterface
    public interface ThrowingRunnable {
        void run() throws Exception;
    }
}

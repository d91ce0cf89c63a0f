package dev.omnigraph.storage.testing;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingMethod;
import reactor.blockhound.BlockingOperationError;

/**
 * Installs BlockHound once per test JVM, before any test runs, in every module (this class ships in the
 * storage-adapter test-jar and is registered through META-INF/services). A blocking call on a non-blocking
 * thread then fails the test that made it.
 */
public final class BlockHoundSession implements LauncherSessionListener {
    private static final AtomicBoolean INSTALLED = new AtomicBoolean();
    /**
     * JVM descriptors of the lance-core 7.0 Java methods every open, commit and fragment write goes through (javap -s).
     * BlockHound checks a method on entry; Lance's natives themselves are not instrumented once their class loads.
     */
    private static final String LANCE_OPEN =
            "(Lorg/apache/arrow/memory/BufferAllocator;Ljava/lang/String;Lorg/lance/ReadOptions;)Lorg/lance/Dataset;";
    private static final String LANCE_WRITE_FRAGMENT = "(Ljava/lang/String;Lorg/apache/arrow/memory/BufferAllocator;"
            + "Lorg/apache/arrow/vector/VectorSchemaRoot;Lorg/lance/WriteParams;)Ljava/util/List;";

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        install();
        HangDiagnostics.watchWorkerFailures(); // a failure inside a worker is what a later hang may come from
    }

    public static void install() {
        if (INSTALLED.compareAndSet(false, true)) {
            BlockHound.install(builder -> builder
                    // Lance extracts its native library on first use; that one read must not poison the JNI loader.
                    .allowBlockingCallsInside("io.questdb.jar.jni.JarJniLoader", "loadLib")
                    // Netty 4.2's adaptive allocator: when threads contend on the shared magazines (non-event-loop
                    // threads, e.g. Reactor's parallel workers), the thread that grows the magazine array waits for
                    // the old magazines' allocation locks, held for one allocation each. Netty's own BlockHound rules
                    // allow the pooled allocator's equivalent locks (PoolArena.lock) but not this one yet.
                    .allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup",
                            "tryExpandMagazines")
                    // Lance's entry points do file or object-store I/O (and wait on Lance's own runtime): they belong
                    // on the storage scheduler only, and BlockHound does not know them on its own.
                    .markAsBlocking("org.lance.Dataset", "open", LANCE_OPEN)
                    .markAsBlocking("org.lance.CommitBuilder", "execute", "(Lorg/lance/Transaction;)Lorg/lance/Dataset;")
                    .markAsBlocking("org.lance.Fragment", "create", LANCE_WRITE_FRAGMENT)
                    .markAsBlocking("org.lance.ipc.LanceScanner", "scanBatches", "()Lorg/apache/arrow/vector/ipc/ArrowReader;")
                    // The default error names only the blocking JDK method; say where it was called from.
                    .blockingMethodCallback(method -> {
                        throw located(method);
                    }));
        }
    }

    /**
     * The error BlockHound would throw, with the blocking method's name extended by the thread and the first frames
     * outside the JDK: a CI log that shows only the message then still says where the call came from.
     */
    private static BlockingOperationError located(BlockingMethod method) {
        String frames = StackWalker.getInstance().walk(stack -> stack
                .map(frame -> frame.getClassName() + "." + frame.getMethodName() + ":" + frame.getLineNumber())
                .filter(frame -> !frame.startsWith("java.") && !frame.startsWith("jdk.")
                        && !frame.startsWith("reactor.blockhound.") && !frame.startsWith(BlockHoundSession.class.getName()))
                .limit(8)
                .collect(Collectors.joining(" < ")));
        String where = method.getName() + " on " + Thread.currentThread().getName() + " via " + frames;
        return new BlockingOperationError(new BlockingMethod(method.getClassName(), where, method.getModifiers()));
    }
}

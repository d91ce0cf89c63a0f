package dev.omnigraph.storage.testing;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;
import reactor.blockhound.BlockHound;

/**
 * Installs BlockHound once per test JVM, before any test runs, in every module (this class ships in the
 * storage-adapter test-jar and is registered through META-INF/services). A blocking call on a non-blocking
 * thread then fails the test that made it.
 */
public final class BlockHoundSession implements LauncherSessionListener {
    private static final AtomicBoolean INSTALLED = new AtomicBoolean();

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        install();
    }

    public static void install() {
        if (INSTALLED.compareAndSet(false, true)) {
            BlockHound.install(builder -> builder
                    // Lance extracts its native library on first use; that one read must not poison the JNI loader.
                    .allowBlockingCallsInside("io.questdb.jar.jni.JarJniLoader", "loadLib"));
        }
    }
}

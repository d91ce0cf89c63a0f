package dev.omnigraph.storage.nativelib;

import java.util.Locale;

/**
 * A platform as jars name their native-library folders ({@code linux-x86-64}, {@code linux-aarch64},
 * {@code darwin-aarch64}, {@code win32-x86-64}: the JNA convention jar-jni used, so lance-core's jar layout resolves
 * unchanged) and what the library file is called there.
 */
public record NativePlatform(String os, String arch) {

    public static NativePlatform current() {
        return of(System.getProperty("os.name"), System.getProperty("os.arch"), System.getProperty("sun.cpu.endian"));
    }

    /** The folder of this platform, or JNA's {@code jna.prefix} override, which jar-jni honoured too. */
    public static String resourcePrefix() {
        String override = System.getProperty("jna.prefix");
        return override != null ? override : current().resourceDir();
    }

    static NativePlatform of(String osName, String osArch, String endian) {
        return new NativePlatform(os(osName), arch(osArch, endian));
    }

    public String resourceDir() {
        return os + "-" + arch;
    }

    public String libraryFile(String name) {
        return switch (os) {
            case "darwin" -> "lib" + name + ".dylib";
            case "win32" -> name + ".dll";
            case "aix" -> "lib" + name + ".a";
            default -> "lib" + name + ".so";
        };
    }

    private static String os(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.startsWith("linux")) return "linux";
        if (lower.startsWith("mac") || lower.startsWith("darwin")) return "darwin";
        if (lower.startsWith("windows")) return "win32";
        if (lower.startsWith("sunos") || lower.startsWith("solaris")) return "sunos";
        if (lower.startsWith("gnu/kfreebsd")) return "kfreebsd";
        int space = lower.indexOf(' ');
        return space < 0 ? lower : lower.substring(0, space); // freebsd, openbsd, netbsd, aix, ...
    }

    private static String arch(String name, String endian) {
        String arch = name.toLowerCase(Locale.ROOT).trim();
        return switch (arch) {
            case "x86_64", "amd64" -> "x86-64";
            case "i386", "i686" -> "x86";
            case "powerpc" -> "ppc";
            case "powerpc64", "ppc64" -> "little".equals(endian) ? "ppc64le" : "ppc64";
            case "zarch_64" -> "s390x";
            default -> arch;
        };
    }
}

package dev.omnigraph.storage.nativelib;

import java.util.regex.Pattern;

/**
 * A library's file name ({@code liblance_jni.so}) and the names its copies get: {@code liblance_jni-<crc>-<size>.so}
 * in the cache, {@code liblance_jni<digits>.so} as the temp copies of jar-jni (File.createTempFile with the part
 * before the first dot as prefix and the rest as suffix).
 */
public record LibraryName(String fileName) {
    private static final Pattern IDENTITY = Pattern.compile("-[0-9a-f]{8}-[0-9]+");
    private static final Pattern TEMP_NUMBER = Pattern.compile("[0-9]+");

    /** Up to the first dot: {@code liblance_jni}. */
    public String base() {
        int dot = fileName.indexOf('.');
        return dot < 0 ? fileName : fileName.substring(0, dot);
    }

    /** From the first dot on: {@code .so}. */
    public String extension() {
        int dot = fileName.indexOf('.');
        return dot < 0 ? "" : fileName.substring(dot);
    }

    /** The cache name of the copy with this identity. */
    public String cached(long crc, long size) {
        String hex = Long.toHexString(crc | 1L << 32).substring(1); // eight digits, leading zeros kept
        return base() + "-" + hex + "-" + size + extension();
    }

    /** Whether {@code name} is a cache copy of this library, of any identity. */
    public boolean isCached(String name) {
        return IDENTITY.matcher(middle(name)).matches();
    }

    /** Whether {@code name} is a temp copy of this library as jar-jni (and this shim's fallback) names them. */
    public boolean isTempCopy(String name) {
        return TEMP_NUMBER.matcher(middle(name)).matches();
    }

    private String middle(String name) {
        int end = name.length() - extension().length();
        return name.startsWith(base()) && name.endsWith(extension()) && end > base().length()
                ? name.substring(base().length(), end) : "";
    }
}

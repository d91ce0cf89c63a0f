package dev.omnigraph.storage.nativelib;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NamesTest {
    @Test
    void platformsAreNamedAsInLanceCoresJar() {
        assertThat(NativePlatform.of("Linux", "amd64", "little").resourceDir()).isEqualTo("linux-x86-64");
        assertThat(NativePlatform.of("Linux", "aarch64", "little").resourceDir()).isEqualTo("linux-aarch64");
        assertThat(NativePlatform.of("Mac OS X", "aarch64", "little").resourceDir()).isEqualTo("darwin-aarch64");
        assertThat(NativePlatform.of("Mac OS X", "x86_64", "little").resourceDir()).isEqualTo("darwin-x86-64");
        assertThat(NativePlatform.of("Windows 11", "amd64", "little").resourceDir()).isEqualTo("win32-x86-64");
        assertThat(NativePlatform.of("FreeBSD", "amd64", "little").resourceDir()).isEqualTo("freebsd-x86-64");
        assertThat(NativePlatform.of("Linux", "ppc64", "little").resourceDir()).isEqualTo("linux-ppc64le");
        assertThat(NativePlatform.of("Linux", "i386", "little").resourceDir()).isEqualTo("linux-x86");
    }

    @Test
    void libraryFilesFollowThePlatformsConvention() {
        assertThat(NativePlatform.of("Linux", "amd64", "little").libraryFile("lance_jni")).isEqualTo("liblance_jni.so");
        assertThat(NativePlatform.of("Mac OS X", "aarch64", "little").libraryFile("lance_jni"))
                .isEqualTo("liblance_jni.dylib");
        assertThat(NativePlatform.of("Windows 10", "amd64", "little").libraryFile("lance_jni"))
                .isEqualTo("lance_jni.dll");
    }

    @Test
    void copiesAreToldApartByName() {
        LibraryName lance = new LibraryName("liblance_jni.so");

        assertThat(lance.cached(0x8ad82defL, 181_359_552)).isEqualTo("liblance_jni-8ad82def-181359552.so");
        assertThat(lance.isCached("liblance_jni-8ad82def-181359552.so")).isTrue();
        assertThat(lance.isTempCopy("liblance_jni-8ad82def-181359552.so")).isFalse();
        assertThat(lance.isTempCopy("liblance_jni8136492734565.so")).isTrue();
        assertThat(lance.isTempCopy("liblance_jni.so")).isFalse();
        assertThat(lance.isTempCopy("liblance_jni12.so.part")).isFalse();
        assertThat(lance.isCached("liblance_jni-8ad82def-181359552.so.123.part")).isFalse();
        assertThat(new LibraryName("jnilib-.tmp").isTempCopy("jnilib-5512.tmp")).isTrue();
    }
}

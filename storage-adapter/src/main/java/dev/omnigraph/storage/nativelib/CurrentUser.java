package dev.omnigraph.storage.nativelib;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.Optional;

/**
 * The user this JVM runs as, to tell whether a file is ours. On Linux the owner of {@code /proc/self} (the
 * effective uid, even in a container without a passwd entry); elsewhere the principal named by {@code user.name}.
 */
final class CurrentUser {
    private static final Optional<UserPrincipal> PRINCIPAL = find();

    private CurrentUser() {
    }

    /** Whether {@code owner} is this user; true when the platform cannot tell (then nothing else could be checked). */
    static boolean is(UserPrincipal owner) {
        return PRINCIPAL.isEmpty() || PRINCIPAL.get().equals(owner);
    }

    static boolean owns(Path path) throws IOException {
        return is(Files.getOwner(path, LinkOption.NOFOLLOW_LINKS));
    }

    private static Optional<UserPrincipal> find() {
        try {
            Path self = Path.of("/proc/self");
            if (Files.isDirectory(self)) {
                return Optional.of(Files.getOwner(self));
            }
            return Optional.of(FileSystems.getDefault().getUserPrincipalLookupService()
                    .lookupPrincipalByName(System.getProperty("user.name")));
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }
}

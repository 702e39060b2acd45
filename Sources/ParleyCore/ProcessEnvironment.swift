import Foundation

/// The process environment, changed safely while children are spawned.
///
/// `posix_spawn` hands the child `environ`; a `setenv` on another thread at
/// that moment may move the array, and the child's exec fails with "Bad
/// address". Parley spawns children (apertium, the Whisper worker) while
/// other threads run, so every spawn holds this lock, and anything that
/// changes the environment after start-up (tests giving elements a key)
/// goes through `set`/`unset`, which hold it too.
public enum ProcessEnvironment {
    private static let lock = NSLock()

    public static func set(_ name: String, _ value: String) {
        lock.withLock { _ = setenv(name, value, 1) }
    }

    public static func unset(_ name: String) {
        lock.withLock { _ = unsetenv(name) }
    }

    /// Runs `body` (a spawn) with the environment held still.
    public static func whileSpawning<T>(_ body: () throws -> T) rethrows -> T {
        try lock.withLock(body)
    }
}

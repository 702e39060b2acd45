import Foundation

/// Blocking work (a GStreamer state change, a pipe to apertium, espeak-ng
/// under its global lock, decoding a corpus) run on a thread of its own and
/// awaited, so it never holds one of the few threads of Swift's cooperative pool.
public enum OffPool {
    public static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Result { () throws(E) in try body() }) }.start()
        }
        return try result.get()
    }
}

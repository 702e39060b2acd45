import Dispatch
import Foundation

/// SIGINT (Ctrl-C) and SIGTERM (a service manager's stop) while a command
/// runs: each is counted and handed to `handler` with its name and how many
/// have come so far, on a queue of its own. `cancel` gives both their
/// default action back.
final class SignalWatch: @unchecked Sendable {
    // @unchecked: the count is behind the lock; the sources are only cancelled.
    static let signals = [SIGINT, SIGTERM]
    private var sources: [DispatchSourceSignal] = []
    private let lock = NSLock()
    private var count = 0

    /// How many signals have come.
    var received: Int { lock.withLock { count } }

    init(_ handler: @escaping @Sendable (_ name: String, _ count: Int) -> Void) {
        // A queue of its own, as said above: on `.global()`, Swift concurrency's
        // pool, a Ctrl-C would wait for a thread while the pipeline keeps it busy.
        let queue = DispatchQueue(label: "parley.signals")
        sources = Self.signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [lock] in
                let count = lock.withLock { self.count += 1; return self.count }
                handler(number == SIGTERM ? "SIGTERM" : "interrupt", count)
            }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
        for number in Self.signals { signal(number, SIG_DFL) }
    }
}

import Synchronization

/// One request at a time per text: a segment whose text is already being
/// translated waits for that translation (and then finds it in the cache)
/// instead of sending the same request again. Speech repeats itself ("yes",
/// "thank you", a name) often within the few seconds a request takes, and
/// with several segments in flight the cache alone would miss every such
/// repeat.
///
/// The first to `enter` with a key leads: it sends the request and must
/// `leave` when it is done, served or failed. Later ones with that key are
/// told to wait, and resume when it leaves; if the leader failed they find
/// nothing cached and enter again (one of them leads the next attempt).
/// A key is only held while its leader runs, so nothing here outlives a
/// request, and a waiter never waits on anything that has not started.
final class RequestGate<Key: Hashable & Sendable>: Sendable {
    enum Role: Equatable, Sendable {
        /// Nobody else was asking: send the request, then `leave`.
        case leader
        /// Someone else was; they have finished now: look in the cache again.
        case waited
    }

    private let waiting = Mutex<[Key: [CheckedContinuation<Role, Never>]]>([:])

    func enter(_ key: Key) async -> Role {
        await withCheckedContinuation { continuation in
            let role: Role? = waiting.withLock { waiting in
                if waiting[key] != nil {
                    waiting[key]!.append(continuation)
                    return nil
                }
                waiting[key] = []
                return .leader
            }
            if let role { continuation.resume(returning: role) }
        }
    }

    /// The leader is done with `key`: everyone waiting on it resumes.
    func leave(_ key: Key) {
        let waiters = waiting.withLock { $0.removeValue(forKey: key) } ?? []
        for waiter in waiters { waiter.resume(returning: .waited) }
    }

    /// Keys with a leader running (for tests).
    var busyKeys: Int { waiting.withLock { $0.count } }

    /// How many wait on `key`'s leader (for tests).
    func waiters(_ key: Key) -> Int { waiting.withLock { $0[key]?.count ?? 0 } }
}

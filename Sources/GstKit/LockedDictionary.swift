import Synchronization

/// A dictionary whose values are created once, under a lock.
final class LockedDictionary<Key: Hashable & Sendable, Value>: Sendable {
    private let storage = Mutex<[Key: UnsafeSendable<Value>]>([:])

    func value(for key: Key, create: () -> Value) -> Value {
        storage.withLock { dictionary in
            if let existing = dictionary[key] { return existing.value }
            let value = create()
            dictionary[key] = UnsafeSendable(value)
            return value
        }
    }
}

/// For values that are immutable once published (class descriptions).
public struct UnsafeSendable<Value>: @unchecked Sendable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
}

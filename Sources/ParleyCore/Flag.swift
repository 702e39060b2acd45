import Synchronization

/// A boolean shared between threads by reference, e.g. "stop now".
public final class Flag: Sendable {
    private let value: Atomic<Bool>
    public init(_ initial: Bool = false) { value = Atomic(initial) }
    public var isSet: Bool { value.load(ordering: .acquiring) }
    public func set(_ newValue: Bool = true) { value.store(newValue, ordering: .releasing) }
    /// Sets the flag; returns whether it was already set.
    public func testAndSet() -> Bool { value.exchange(true, ordering: .acquiringAndReleasing) }
}

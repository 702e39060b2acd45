import Foundation

/// A bounded FIFO between one or more producers and one consumer thread.
/// `put` waits while full (back-pressure); `take` waits while empty.
/// `close()` wakes everyone: puts are refused and `take` returns nil once empty.
public final class BlockingQueue<Element: Sendable>: @unchecked Sendable {
    // @unchecked: all state is guarded by `condition`.
    private let condition = NSCondition()
    private var items: [Element] = []
    private var closed = false
    public let capacity: Int

    public init(capacity: Int = .max) { self.capacity = max(1, capacity) }

    /// Adds an item; false if the queue is closed.
    @discardableResult
    public func put(_ item: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !closed { condition.wait() }
        guard !closed else { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// The oldest item; nil once closed and drained.
    public func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !closed { condition.wait() }
        guard !items.isEmpty else { return nil }
        condition.broadcast()
        return items.removeFirst()
    }

    /// Drops everything queued (a flush); stays open.
    public func removeAll() {
        condition.lock()
        defer { condition.unlock() }
        items.removeAll()
        condition.broadcast()
    }

    public func close() {
        condition.lock()
        defer { condition.unlock() }
        closed = true
        condition.broadcast()
    }

    public var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return items.count
    }
}

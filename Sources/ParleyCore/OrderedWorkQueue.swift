import Foundation

/// What a full queue does with a new item.
public enum QueuePolicy: String, Sendable, CaseIterable {
    /// The submitter waits until there is room, so back-pressure reaches the source.
    case block
    /// The oldest item not yet started is skipped to make room.
    case dropOldest = "drop-oldest"
    /// The new item is skipped.
    case dropNewest = "drop-newest"
}

/// Runs asynchronous work with bounded concurrency and bounded backlog, and
/// hands results to one consumer strictly in submission order, interleaved
/// with the serialized events submitted between them.
///
/// Capacity: at most `maxInFlight` items run at once, and at most
/// `maxInFlight + maxPending` items hold work or a result not yet delivered.
/// That second bound is what keeps memory bounded when the oldest item is slow
/// and later ones finish first. Skipped items hold no payload and do not count.
///
/// Nothing disappears: every submitted item is delivered once, as a result or
/// as `.skipped`, unless `cancelAll()` discards the backlog (a flush).
public final class OrderedWorkQueue<Output: Sendable, Event: Sendable>: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `condition`.

    public struct Configuration: Sendable, Equatable {
        public var maxInFlight: Int
        public var maxPending: Int
        public var policy: QueuePolicy
        /// Whether every partial output is delivered (a stream of audio
        /// chunks) rather than only the latest of an item not yet the oldest
        /// (a transcript growing: each partial supersedes the one before).
        public var keepsEveryPartial: Bool
        public init(maxInFlight: Int = 2, maxPending: Int = 16, policy: QueuePolicy = .block,
                    keepsEveryPartial: Bool = false) {
            self.maxInFlight = max(1, maxInFlight)
            self.maxPending = max(0, maxPending)
            self.policy = policy
            self.keepsEveryPartial = keepsEveryPartial
        }
    }

    public enum SkipReason: String, Sendable {
        case droppedOldest = "drop-oldest"
        case droppedNewest = "drop-newest"
    }

    public enum Delivery: Sendable {
        case completed(ticket: UInt64, output: Output, queueWait: UInt64)
        /// Progress from an item still running (e.g. a streamed partial
        /// transcript), delivered in order like everything else: at once
        /// for the oldest item, for a later one when it becomes the oldest.
        case partial(ticket: UInt64, output: Output)
        /// `output` is what the submitter said stands in for a skipped item.
        case skipped(ticket: UInt64, reason: SkipReason, output: Output)
        case event(Event)
    }

    public enum SubmitOutcome: Sendable, Equatable {
        case accepted(ticket: UInt64)
        /// Accepted, but the policy skipped an item: this one (`droppedNewest`)
        /// or an older one that had not started (`droppedOldest`).
        case acceptedWithDrop(ticket: UInt64, skipped: UInt64, reason: SkipReason)
        /// The queue is flushing or closed; nothing was queued.
        case flushing
    }

    public struct Statistics: Sendable, Equatable {
        public var submitted: UInt64 = 0
        public var completed: UInt64 = 0
        public var skipped: UInt64 = 0
        public var running: Int = 0
        /// Items holding work or a result, not yet delivered.
        public var depth: Int = 0
        public var maxDepth: Int = 0
        public var maxRunning: Int = 0
        /// Total and longest time items waited between submit and start, ns.
        public var totalQueueWait: UInt64 = 0
        public var maxQueueWait: UInt64 = 0
        /// Total time submitters spent blocked on a full queue, ns.
        public var totalBlocked: UInt64 = 0
        public init() {}
    }

    private enum SlotState {
        case waiting(work: @Sendable (PartialSink) async -> Output)
        case running
        case done(Output, queueWait: UInt64)
        case skipped(SkipReason)
        case event(Event)
    }

    private struct Slot {
        let ticket: UInt64
        let submittedAt: UInt64
        var state: SlotState
        var ifSkipped: (@Sendable (SkipReason) -> Output)? = nil
        /// Partials not yet delivered. A later partial supersedes an earlier
        /// one of the same item while it waits, so this stays small.
        var partials: [Output] = []
        var holdsPayload: Bool {
            switch state {
            case .waiting, .running, .done: true
            case .skipped, .event: false
            }
        }
    }

    public let configuration: Configuration
    private let condition = NSCondition()
    private var slots: [Slot] = []
    private var tasks: [UInt64: Task<Void, Never>] = [:]
    private var nextTicket: UInt64 = 0
    private var generation: UInt64 = 0
    private var flushing = false
    private var closed = false
    private var stats = Statistics()

    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    private var capacity: Int { configuration.maxInFlight + configuration.maxPending }

    public var statistics: Statistics {
        condition.lock(); defer { condition.unlock() }
        return stats
    }

    /// Where running work reports progress.
    public struct PartialSink: Sendable {
        fileprivate let queue: OrderedWorkQueue
        fileprivate let ticket: UInt64
        fileprivate let generation: UInt64
        public func emit(_ output: Output) { queue.partial(ticket: ticket, generation: generation, output: output) }
    }

    /// Queues `work`. With `.block`, waits while the queue is full. If the
    /// policy skips the item, `ifSkipped` makes the output delivered in its place.
    @discardableResult
    public func submit(_ work: @escaping @Sendable () async -> Output,
                       ifSkipped: @escaping @Sendable (SkipReason) -> Output) -> SubmitOutcome {
        submit(progressive: { _ in await work() }, ifSkipped: ifSkipped)
    }

    /// Queues work that may report partial outputs while it runs.
    @discardableResult
    public func submit(progressive work: @escaping @Sendable (PartialSink) async -> Output,
                       ifSkipped: @escaping @Sendable (SkipReason) -> Output) -> SubmitOutcome {
        condition.lock()
        defer { condition.unlock() }
        if flushing || closed { return .flushing }
        var dropped: (UInt64, SkipReason)?
        if stats.depth >= capacity {
            switch configuration.policy {
            case .block:
                let started = MonotonicClock.nanoseconds()
                let myGeneration = generation
                while stats.depth >= capacity && !flushing && !closed && generation == myGeneration {
                    condition.wait()
                }
                stats.totalBlocked += MonotonicClock.nanoseconds() - started
                if flushing || closed || generation != myGeneration { return .flushing }
            case .dropOldest:
                if let index = slots.firstIndex(where: { if case .waiting = $0.state { true } else { false } }) {
                    slots[index].state = .skipped(.droppedOldest)
                    stats.depth -= 1
                    stats.skipped += 1
                    dropped = (slots[index].ticket, .droppedOldest)
                    condition.broadcast()
                } else {
                    return appendSkipped(reason: .droppedNewest, ifSkipped: ifSkipped)
                }
            case .dropNewest:
                return appendSkipped(reason: .droppedNewest, ifSkipped: ifSkipped)
            }
        }
        let ticket = nextTicket
        nextTicket += 1
        stats.submitted += 1
        slots.append(Slot(ticket: ticket, submittedAt: MonotonicClock.nanoseconds(), state: .waiting(work: work),
                          ifSkipped: ifSkipped))
        stats.depth += 1
        stats.maxDepth = max(stats.maxDepth, stats.depth)
        startWaitingWork()
        if let (skipped, reason) = dropped {
            return .acceptedWithDrop(ticket: ticket, skipped: skipped, reason: reason)
        }
        return .accepted(ticket: ticket)
    }

    /// Queues a serialized event: delivered after everything submitted before it.
    @discardableResult
    public func submit(event: Event) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if flushing || closed { return false }
        let ticket = nextTicket
        nextTicket += 1
        slots.append(Slot(ticket: ticket, submittedAt: MonotonicClock.nanoseconds(), state: .event(event)))
        condition.broadcast()
        return true
    }

    /// The next delivery in order; blocks until the oldest item is ready.
    /// Returns nil once the queue is closed and empty, or while flushing.
    public func next() -> Delivery? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let head = slots.first, !head.partials.isEmpty {
                let output = slots[0].partials.removeFirst()
                return .partial(ticket: head.ticket, output: output)
            }
            if let head = slots.first {
                switch head.state {
                case .done(let output, let wait):
                    slots.removeFirst()
                    stats.depth -= 1
                    condition.broadcast()
                    return .completed(ticket: head.ticket, output: output, queueWait: wait)
                case .skipped(let reason):
                    slots.removeFirst()
                    condition.broadcast()
                    return .skipped(ticket: head.ticket, reason: reason, output: head.ifSkipped!(reason))
                case .event(let event):
                    slots.removeFirst()
                    condition.broadcast()
                    return .event(event)
                case .waiting, .running:
                    break
                }
            } else if closed {
                return nil
            }
            condition.wait()
        }
    }

    /// Blocks until everything submitted so far has been delivered (or flushed).
    public func drain() {
        condition.lock()
        defer { condition.unlock() }
        let myGeneration = generation
        while !slots.isEmpty && generation == myGeneration && !closed { condition.wait() }
    }

    /// A flush: cancels running work, discards the backlog and wakes blocked
    /// submitters, without waiting for anything. Submissions are refused until
    /// `resume()`.
    public func cancelAll() {
        condition.lock()
        defer { condition.unlock() }
        flushing = true
        discardAll()
    }

    /// Ends a flush.
    public func resume() {
        condition.lock()
        defer { condition.unlock() }
        flushing = false
        condition.broadcast()
    }

    /// Cancels everything and makes `next()` return nil for good, so the
    /// consumer thread can be joined.
    public func close() {
        condition.lock()
        defer { condition.unlock() }
        closed = true
        discardAll()
    }

    /// Caller holds the lock.
    private func discardAll() {
        generation += 1
        for task in tasks.values { task.cancel() }
        tasks.removeAll()
        slots.removeAll()
        stats.depth = 0
        stats.running = 0
        condition.broadcast()
    }

    /// Caller holds the lock.
    private func appendSkipped(reason: SkipReason, ifSkipped: @escaping @Sendable (SkipReason) -> Output) -> SubmitOutcome {
        let ticket = nextTicket
        nextTicket += 1
        stats.submitted += 1
        stats.skipped += 1
        slots.append(Slot(ticket: ticket, submittedAt: MonotonicClock.nanoseconds(), state: .skipped(reason),
                          ifSkipped: ifSkipped))
        condition.broadcast()
        return .acceptedWithDrop(ticket: ticket, skipped: ticket, reason: reason)
    }

    /// Caller holds the lock.
    private func startWaitingWork() {
        var index = 0
        while stats.running < configuration.maxInFlight && index < slots.count {
            if case .waiting(let work) = slots[index].state {
                let ticket = slots[index].ticket
                let wait = MonotonicClock.nanoseconds() - slots[index].submittedAt
                slots[index].state = .running
                stats.running += 1
                stats.maxRunning = max(stats.maxRunning, stats.running)
                stats.totalQueueWait += wait
                stats.maxQueueWait = max(stats.maxQueueWait, wait)
                let myGeneration = generation
                let sink = PartialSink(queue: self, ticket: ticket, generation: myGeneration)
                tasks[ticket] = Task.detached { [weak self] in
                    let output = await work(sink)
                    self?.finish(ticket: ticket, generation: myGeneration, output: output, queueWait: wait)
                }
            }
            index += 1
        }
    }

    fileprivate func partial(ticket: UInt64, generation partialGeneration: UInt64, output: Output) {
        condition.lock()
        defer { condition.unlock() }
        guard partialGeneration == generation,
              let index = slots.firstIndex(where: { $0.ticket == ticket }) else { return }
        if index == 0 || configuration.keepsEveryPartial {
            slots[index].partials.append(output)
        } else {
            slots[index].partials = [output]  // not yet the oldest: only the latest matters
        }
        condition.broadcast()
    }

    private func finish(ticket: UInt64, generation finishedGeneration: UInt64, output: Output, queueWait: UInt64) {
        condition.lock()
        defer { condition.unlock() }
        // Work from before a flush finishes into a queue that no longer wants it.
        guard finishedGeneration == generation else { return }
        tasks[ticket] = nil
        stats.running -= 1
        stats.completed += 1
        if let index = slots.firstIndex(where: { $0.ticket == ticket }) {
            slots[index].state = .done(output, queueWait: queueWait)
        }
        startWaitingWork()
        condition.broadcast()
    }
}

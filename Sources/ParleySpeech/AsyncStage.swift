import Foundation
import GstKit
import ParleyCore
import Synchronization

/// What one piece of async work produces: buffers to push, in order, and
/// what to tell the application about it.
public struct StageOutput: Sendable {
    public var buffers: [Buffer]
    public var warning: ElementMessageText?
    /// A fatal error (e.g. a rejected API key): posted after the buffers,
    /// and the stream stops.
    public var error: ElementMessageText?
    public var messages: [Structure]
    /// Asked just before pushing: false drops the buffers and messages
    /// (speech cut by a barge-in after it was made but before it left).
    public var stillWanted: (@Sendable () -> Bool)?
    /// Serialized events pushed before and after the buffers (markers that
    /// let a recorder cut the output per utterance).
    public var eventsBefore: [Event]
    public var eventsAfter: [Event]
    /// Runs on the push thread just before this output leaves, in output
    /// order: for what can only be decided then (where speech fetched
    /// concurrently falls on the timeline).
    public var prepare: (@Sendable (inout StageOutput) -> Void)?

    public init(buffers: [Buffer] = [], warning: ElementMessageText? = nil, error: ElementMessageText? = nil,
                messages: [Structure] = [], stillWanted: (@Sendable () -> Bool)? = nil,
                eventsBefore: [Event] = [], eventsAfter: [Event] = []) {
        self.buffers = buffers
        self.warning = warning
        self.error = error
        self.messages = messages
        self.stillWanted = stillWanted
        self.eventsBefore = eventsBefore
        self.eventsAfter = eventsAfter
    }
}

/// The queue settings every network element exposes as properties, as an
/// enum property (`queue-policy`) and the figures the queue measures.
public enum QueueProperties {
    public static let DEFAULT_MAX_PENDING = 16
    public static let DEFAULT_POLICY = QueuePolicy.block

    public static let policyValues = [
        EnumValue(0, "block", "Wait for room: back-pressure reaches the source"),
        EnumValue(1, "drop-oldest", "Skip the oldest segment not yet started"),
        EnumValue(2, "drop-newest", "Skip the new segment"),
    ]

    public static func policy(_ value: Int) -> QueuePolicy {
        [QueuePolicy.block, .dropOldest, .dropNewest][min(max(value, 0), 2)]
    }

    public static func value(_ policy: QueuePolicy) -> Int {
        switch policy {
        case .block: 0
        case .dropOldest: 1
        case .dropNewest: 2
        }
    }

    /// The queue's settings as they are before any property is set: the one
    /// place an element's queue defaults come from.
    public static func defaults(maxInFlight: Int) -> AsyncStage.Queue.Configuration {
        AsyncStage.Queue.Configuration(maxInFlight: maxInFlight, maxPending: DEFAULT_MAX_PENDING, policy: DEFAULT_POLICY)
    }

    /// The properties, with the element's own default for `max-in-flight`.
    public static func specs(defaultMaxInFlight: Int) -> [PropertySpec] {
        [
            PropertySpec("max-in-flight", nick: "Max in flight", blurb: "Requests running at once",
                         .int(default: defaultMaxInFlight, range: 1...64)),
            PropertySpec("max-pending", nick: "Max pending",
                         blurb: "Segments that may wait for a free request slot (or a result for the oldest) before queue-policy applies",
                         .int(default: DEFAULT_MAX_PENDING, range: 0...10_000)),
            PropertySpec("queue-policy", nick: "Queue policy", blurb: "What to do with a new segment when the queue is full",
                         .enumeration(typeName: "GstParleyQueuePolicy", values: policyValues, default: value(DEFAULT_POLICY))),
            PropertySpec("queue-depth", nick: "Queue depth",
                         blurb: "Segments queued, running or waiting to be pushed right now",
                         .int(default: 0, range: 0...Int(Int32.max)), flags: .readOnly),
            PropertySpec("max-queue-depth", nick: "Max queue depth", blurb: "Highest queue depth since the element started",
                         .int(default: 0, range: 0...Int(Int32.max)), flags: .readOnly),
            PropertySpec("queue-wait-ms", nick: "Queue wait",
                         blurb: "Mean time a segment waited for a request slot since the element started, in ms",
                         .double(default: 0, range: 0...Double.greatestFiniteMagnitude), flags: .readOnly),
            PropertySpec("blocked-ms", nick: "Blocked",
                         blurb: "Time the streaming thread spent waiting for room in the queue (queue-policy=block), in ms",
                         .double(default: 0, range: 0...Double.greatestFiniteMagnitude), flags: .readOnly),
        ]
    }

    /// `latency`: what an async element expects to need once a segment has
    /// ended, added to the latency it reports when the pipeline is live (as
    /// gst-plugins-rs' transcribers do), so live sinks wait that much for
    /// its results and `GST_TRACERS=latency` shows its share. Not live, the
    /// element reports upstream's latency unchanged.
    public static func latencySpec(defaultMs: Int) -> PropertySpec {
        PropertySpec("latency", nick: "Latency",
                     blurb: "Time this element expects to need for a segment once it has ended, in ms: added to the latency it reports in a live pipeline, so live sinks wait for its results",
                     .int(default: defaultMs, range: 0...600_000))
    }

    /// Reads `max-in-flight`, `max-pending` or `queue-policy` from settings.
    public static func property(_ name: String, of configuration: AsyncStage.Queue.Configuration) -> PropertyValue? {
        switch name {
        case "max-in-flight": .int(configuration.maxInFlight)
        case "max-pending": .int(configuration.maxPending)
        case "queue-policy": .enumeration(value(configuration.policy))
        default: nil
        }
    }

    /// Sets one of them; false if `name` is not a queue setting.
    public static func set(_ name: String, _ value: PropertyValue, in configuration: inout AsyncStage.Queue.Configuration) -> Bool {
        switch name {
        case "max-in-flight": configuration.maxInFlight = max(1, value.int)
        case "max-pending": configuration.maxPending = max(0, value.int)
        case "queue-policy": configuration.policy = policy(value.int)
        default: return false
        }
        return true
    }
}

/// The async half of a network element: work submitted from the streaming
/// thread runs concurrently through an `OrderedWorkQueue`, and its results,
/// with the serialized events between them, are pushed in order from one
/// dedicated thread (never from Swift's cooperative pool, since pushing blocks).
public final class AsyncStage: @unchecked Sendable {
    // @unchecked: `queue`/`thread` are set in start() and cleared in stop(),
    // both on the state-change thread; everything else is behind locks.
    public typealias Queue = OrderedWorkQueue<StageOutput, Event>

    private let element: ElementHandle
    private let log: DebugCategory
    private var queue: Queue?
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)
    private let lastFlow = Mutex<FlowResult>(.ok)
    private let lastStatistics = Mutex(Queue.Statistics())
    private let latencyMs: Mutex<Int>

    /// `defaultLatencyMs` is the element's DEFAULT for its `latency` property.
    public init(element: ElementHandle, log: DebugCategory, defaultLatencyMs: Int) {
        self.element = element
        self.log = log
        latencyMs = Mutex(defaultLatencyMs)
    }

    /// The `latency` property, in ns: what the stage adds when live.
    public var latency: UInt64 { UInt64(latencyMs.withLock { $0 }) * 1_000_000 }

    /// Sets a property every async element has (`latency`); false for others.
    public func setCommonProperty(_ name: String, _ value: PropertyValue) -> Bool {
        guard name == "latency" else { return false }
        latencyMs.withLock { $0 = max(0, value.int) }
        return true
    }

    /// Starts the push thread (READY→PAUSED). An element whose src pad is
    /// not linked ends the pipeline: it then counts as a sink and posts EOS
    /// itself once everything has drained.
    public func start(_ configuration: Queue.Configuration) {
        element.setSinkFlag(!(element.srcPad?.isLinked ?? false))
        let queue = Queue(configuration)
        self.queue = queue
        lastFlow.withLock { $0 = .ok }
        let thread = Thread { [self] in pushLoop(queue) }
        thread.name = "\(element.name):push"
        self.thread = thread
        thread.start()
    }

    /// Cancels everything and joins the push thread (PAUSED→READY).
    public func stop() {
        guard let queue else { return }
        lastStatistics.withLock { $0 = queue.statistics }
        queue.close()
        finished.wait()
        self.queue = nil
        thread = nil
    }

    /// Queues work for one segment. `placeholder` builds the result pushed in
    /// its place if the queue policy skips it. Blocks with policy `block`.
    /// Returns the flow to answer upstream with.
    public func submit(_ work: @escaping @Sendable () async -> StageOutput,
                       placeholder: @escaping @Sendable (Queue.SkipReason) -> StageOutput) -> FlowResult {
        submit(progressive: { _ in await work() }, placeholder: placeholder)
    }

    /// Like `submit`, for work that pushes partial results (streamed
    /// transcripts) through `emit` while it runs; they leave in order.
    public func submit(progressive work: @escaping @Sendable (_ emit: @escaping @Sendable (StageOutput) -> Void) async -> StageOutput,
                       placeholder: @escaping @Sendable (Queue.SkipReason) -> StageOutput) -> FlowResult {
        let flow = lastFlow.withLock { $0 }.ignoringNotLinked
        if case .failure = flow { return flow }
        guard let queue else { return .failure(.flushing) }
        // Each `parley/latency` message the work posts says how long its
        // segment waited for a request slot: the queue's share of the delay.
        let submitted = MonotonicClock.nanoseconds()
        let timed: @Sendable (Queue.PartialSink) async -> StageOutput = { sink in
            let waitMs = Double(MonotonicClock.nanoseconds() - submitted) / 1e6
            return Self.withQueueWait(await work { sink.emit(Self.withQueueWait($0, waitMs)) }, waitMs)
        }
        switch queue.submit(progressive: timed, ifSkipped: placeholder) {
        case .accepted:
            let statistics = queue.statistics
            log.debug("work queued: \(statistics.running) running, depth \(statistics.depth) (max-in-flight \(queue.configuration.maxInFlight), max-pending \(queue.configuration.maxPending))", object: element)
        case .acceptedWithDrop(_, let skipped, let reason):
            log.debug("queue full: skipping ticket \(skipped) (\(reason.rawValue))", object: element)
        case .flushing:
            return .failure(.flushing)
        }
        return .ok
    }

    /// Adds `queue-wait-ms` to the output's `parley/latency` messages.
    static func withQueueWait(_ output: StageOutput, _ waitMs: Double) -> StageOutput {
        var output = output
        output.messages = output.messages.map { message in
            guard var latency = LatencyMessage(message), latency[figure: "queue-wait-ms"] == nil else { return message }
            latency[figure: "queue-wait-ms"] = waitMs
            return latency.structure
        }
        return output
    }

    /// Queues a serialized event behind the work before it.
    @discardableResult
    public func forward(_ event: Event) -> Bool {
        queue?.submit(event: event) ?? false
    }

    /// What an async element does with a sink-pad event once the element
    /// has seen it: flushes cancel and resume the queue (and go downstream
    /// at once), STREAM_START is followed by the output caps, input CAPS stay
    /// here (the output's are the element's own), a TIME SEGMENT is followed
    /// by a GAP at its start, other serialized events keep their place behind
    /// the work, the rest take GStreamer's default path.
    ///
    /// The GAP is what sparse streams send (subtitles do the same): results
    /// come only once someone has spoken, and a sink downstream prerolls on
    /// it instead of waiting for the first one. It lets every sink after a
    /// Parley element be an ordinary prerolling sink, which is also what
    /// keeps gst-launch-1.0 from a race in GstBin (see transcriptsink).
    public func route(_ event: Event, pad: Pad, outputCaps: Caps) -> Bool {
        switch event.view {
        case .segment(let segment?):
            let forwarded = forward(event)
            forward(Event.gap(timestamp: segment.start, duration: 0))
            return forwarded
        case .flushStart:
            flushStart()
            return pad.forwardDefault(event, parent: element)
        case .flushStop:
            flushStop()
            return pad.forwardDefault(event, parent: element)
        case .caps:
            return true
        case .streamStart:
            let forwarded = forward(event)
            forward(Event.caps(outputCaps))
            return forwarded
        default:
            return event.isSerialized ? forward(event) : pad.forwardDefault(event, parent: element)
        }
    }

    /// FLUSH_START: cancel in-flight work without blocking.
    public func flushStart() {
        queue?.cancelAll()
    }

    /// FLUSH_STOP: accept work again.
    public func flushStop() {
        lastFlow.withLock { $0 = .ok }
        queue?.resume()
    }

    public var statistics: Queue.Statistics {
        queue?.statistics ?? lastStatistics.withLock { $0 }
    }

    /// What every async element reports alike: the queue's figures, its
    /// settings (`max-in-flight`, `max-pending`, `queue-policy`) and the
    /// result counters; nil for the element's own properties.
    public func commonProperty(_ name: String, queue: Queue.Configuration, counters: ResultCounters) -> PropertyValue? {
        if name == "latency" { return latencyProperty }
        if name == "stats" { return .structure(stats(counters)) }
        return statisticsProperty(name) ?? QueueProperties.property(name, of: queue) ?? counters.property(name)
    }

    /// The `latency` property, for elements that have no queue properties.
    public var latencyProperty: PropertyValue { .int(latencyMs.withLock { $0 }) }

    /// `stats`: every read-only figure in one structure, read at one moment,
    /// as queue2's and rtpjitterbuffer's `stats` are (what tools poll; the
    /// figures stay properties of their own too).
    public static let statsSpec = PropertySpec(
        "stats", nick: "Statistics",
        blurb: "A snapshot of the figures, as one application/x-parley-stats structure: results-final, results-skipped, results-failed (guint64), queue-depth, max-queue-depth (gint64), queue-wait-ms, blocked-ms (gdouble)",
        .structure, flags: .readOnly)

    /// The figures `statsSpec` lists, read now.
    public func stats(_ counters: ResultCounters) -> Structure {
        var fields: [(String, PropertyValue)] = []
        for name in ["results-final", "results-skipped", "results-failed"] {
            if let value = counters.property(name) { fields.append((name, value)) }
        }
        for name in ["queue-depth", "max-queue-depth", "queue-wait-ms", "blocked-ms"] {
            if let value = statisticsProperty(name) { fields.append((name, value)) }
        }
        return Structure("application/x-parley-stats", fields)
    }

    /// Reads one of `QueueProperties`' read-only figures.
    public func statisticsProperty(_ name: String) -> PropertyValue? {
        let stats = statistics
        switch name {
        case "queue-depth": return .int(stats.depth)
        case "max-queue-depth": return .int(stats.maxDepth)
        case "queue-wait-ms":
            let started = stats.completed + UInt64(stats.running)
            return .double(started == 0 ? 0 : Double(stats.totalQueueWait) / Double(started) / 1e6)
        case "blocked-ms": return .double(Double(stats.totalBlocked) / 1e6)
        default: return nil
        }
    }

    private func pushLoop(_ queue: Queue) {
        defer { finished.signal() }
        while let delivery = queue.next() {
            switch delivery {
            case .completed(_, let output, _), .skipped(_, _, let output), .partial(_, let output):
                deliver(output)
            case .event(let event):
                log.debug("event out: \(event.typeName)", object: element)
                guard let pad = element.srcPad else { continue }
                if event.isEOS && !pad.isLinked {
                    element.postEOS()
                    continue
                }
                pad.push(event)
            }
        }
    }

    private func deliver(_ output: StageOutput) {
        if let stillWanted = output.stillWanted, !stillWanted() { return }
        var output = output
        if let prepare = output.prepare { prepare(&output) }
        if log.isEnabled(.debug) {
            let parts = [counted(output.buffers.count, "buffer")] + output.messages.map(\.name)
                + (output.warning.map { ["warning: \($0.text)"] } ?? []) + (output.error.map { ["error: \($0.text)"] } ?? [])
            log.debug("result out: \(parts.joined(separator: ", "))", object: element)
        }
        if let warning = output.warning { element.postWarning(warning) }
        for message in output.messages { element.postElementMessage(message) }
        guard let pad = element.srcPad else {
            if let error = output.error { element.postError(error) }
            return
        }
        for event in output.eventsBefore { pad.push(event) }
        defer { for event in output.eventsAfter { pad.push(event) } }
        for buffer in output.buffers {
            let flow = pad.push(buffer)
            if case .failure(let error) = flow {
                lastFlow.withLock { $0 = flow }
                log.debug("push returned \(error)", object: element)
            }
        }
        if let error = output.error {
            element.postError(error)
            lastFlow.withLock { $0 = .failure(.error) }
        }
    }
}

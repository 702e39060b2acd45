import Synchronization

/// The kind of element that ends several streams at once (a recorder):
/// request sink pads from `pads.requestSinks` (`text_%u`, `audio_%u`, ...),
/// no src pad. Each buffer and event arrives with the name of its pad, on
/// that pad's streaming thread: pads stream concurrently, so the element
/// guards its state. The element is flagged as a sink, and posts EOS once
/// every one of its pads has received EOS, so the pipeline ends when it has
/// written everything.
public protocol MultiSink: ElementImpl {
    /// One buffer on `pad`. Throw `.error` after posting an error.
    func render(_ buffer: Buffer, pad: String) throws(FlowError)
    /// A serialized or out-of-band event on `pad` (caps, segment, custom
    /// events, EOS); the kind handles what GStreamer needs of a sink.
    func sinkEvent(_ event: Event, pad: String)
    /// A request pad was added (often before the element starts) or released.
    func padAdded(name: String)
    func padRemoved(name: String)
}

extension MultiSink {
    public func sinkEvent(_ event: Event, pad: String) {}
    public func padAdded(name: String) {}
    public func padRemoved(name: String) {}
    public static var bridgeKind: ElementKind { .element }
    public static func makeDriver(for implementation: Self) -> any ElementDriver { MultiSinkDriver(implementation) }
}

final class MultiSinkDriver<S: MultiSink>: ElementDriver {
    let sink: S
    let log = S.log
    /// Each request pad, and whether it has seen EOS.
    private let pads = Mutex<[String: Bool]>([:])
    private let posted = Atomic<Bool>(false)
    init(_ sink: S) { self.sink = sink }
    var implementation: any ElementImpl { sink }

    func changeState(_ change: StateChange, after: Bool) -> Bool {
        if change == .readyToPaused && !after {
            posted.store(false, ordering: .relaxed)
            pads.withLock { pads in for name in pads.keys { pads[name] = false } }
        }
        return lifeCycle(change, after: after)
    }

    func padAdded(_ pad: Pad) {
        pads.withLock { $0[pad.name] = false }
        sink.padAdded(name: pad.name)
    }
    func padRemoved(_ pad: Pad) {
        pads.withLock { $0[pad.name] = nil }
        sink.padRemoved(name: pad.name)
        postEOSIfDone()
    }

    func chain(pad: Pad, buffer: Buffer) -> FlowResult {
        log.verbose("\(pad.name): \(buffer.summary)", object: element)
        do throws(FlowError) {
            try sink.render(buffer, pad: pad.name)
            return .ok
        } catch {
            return .failure(error)
        }
    }

    func event(pad: Pad, event: Event) -> Bool {
        let name = pad.name
        sink.sinkEvent(event, pad: name)
        switch event.view {
        case .eos:
            pads.withLock { $0[name] = true }
            postEOSIfDone()
        case .flushStop:
            posted.store(false, ordering: .relaxed)
            pads.withLock { $0[name] = false }
        default:
            break
        }
        return true  // the end of these streams: nothing goes further
    }

    /// A recorder writes what arrives when it arrives and never waits on the
    /// clock, so it answers LATENCY as a `GstBaseSink` with `sync=false`
    /// does: upstream's figures, not live. The pipeline's latency is then
    /// set by the sinks that play in time. Answering live, with the maximum
    /// of whichever branch it was asked through, made a pipeline whose
    /// playing branch needs longer (a recorded transcript beside the spoken
    /// translation) impossible to configure: GStreamer warned "clock
    /// problem ... max < min. Add queues".
    func query(pad: Pad, query: Query) -> Bool {
        guard pad.isSink, case .latency = query.view else { return pad.queryDefault(query, parent: element) }
        let upstream = pad.peerLatency() ?? Latency(live: false, min: 0, max: Gst.clockTimeNone)
        query.setLatency(Latency(live: false, min: upstream.min, max: upstream.max))
        return true
    }

    private func postEOSIfDone() {
        let done = pads.withLock { !$0.isEmpty && $0.values.allSatisfy { $0 } }
        if done && !posted.exchange(true, ordering: .relaxed) { element.postEOS() }
    }
}

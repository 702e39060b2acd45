import CGStreamer
import GstBridge

/// What a kind's callback returns for its driver to push downstream, in order.
public enum Output: Sendable {
    case buffer(Buffer)
    case event(Event)
}

/// The kind of element with one sink and one src pad that turns each input
/// buffer into zero or more outputs synchronously, on the streaming thread
/// (the VAD on audio, the line splitter on text). Like gst-plugins-rs' `BaseTransformImpl::transform`, the
/// element returns what to push; the driver pushes it, answers LATENCY with
/// upstream's plus `addedLatency`, and forwards events it is given back.
public protocol Filter: ElementImpl {
    /// One input buffer in; what to push, in order.
    func transform(_ buffer: Buffer) -> [Output]
    /// A sink-pad event; what to push in its place, in order. The default
    /// forwards it unchanged (`[.event(event)]`); return `[]` to drop it.
    func sinkEvent(_ event: Event) -> [Output]
    /// Latency the element adds to upstream's, in ns.
    var addedLatency: UInt64 { get }
    /// Whether an unlinked src pad is fine (the element is useful for its
    /// bus messages alone): `not-linked` is then not reported upstream.
    static var outputIsOptional: Bool { get }
}

extension Filter {
    public func sinkEvent(_ event: Event) -> [Output] { [.event(event)] }
    public var addedLatency: UInt64 { 0 }
    public static var outputIsOptional: Bool { false }

    public static var bridgeKind: ElementKind { .element }
    public static func makeDriver(for implementation: Self) -> any ElementDriver {
        FilterDriver(implementation)
    }
}

final class FilterDriver<Implementation: Filter>: ElementDriver {
    let filter: Implementation
    /// Looked up once, not per buffer.
    let log = Implementation.log
    init(_ filter: Implementation) { self.filter = filter }
    var implementation: any ElementImpl { filter }

    func chain(pad: Pad, buffer: Buffer) -> FlowResult {
        log.verbose("buffer in: \(buffer.summary)", object: element)
        let result = push(filter.transform(buffer))
        return Implementation.outputIsOptional ? result.ignoringNotLinked : result
    }

    func event(pad: Pad, event: Event) -> Bool {
        guard pad.isSink else { return pad.forwardDefault(event, parent: element) }
        let outputs = filter.sinkEvent(event)
        // A CAPS event the element hands back is the pad's own business.
        var handled = true
        for output in outputs {
            switch output {
            case .event(let item) where item === event:
                handled = pad.forwardDefault(item, parent: element) && handled
            default:
                _ = push([output])
            }
        }
        return handled
    }

    func query(pad: Pad, query: Query) -> Bool {
        guard !pad.isSink, case .latency = query.view, let upstream = element.sinkPad?.peerLatency() else {
            return pad.queryDefault(query, parent: element)
        }
        query.setLatency(upstream.adding(filter.addedLatency))
        return true
    }

    /// Pushes in order; returns the first failure, going on past it so
    /// events (EOS) are not lost.
    private func push(_ outputs: [Output]) -> FlowResult {
        guard let src = element.srcPad else { return .failure(.error) }
        var result = FlowResult.ok
        for output in outputs {
            switch output {
            case .buffer(let buffer):
                let flow = src.push(buffer)
                if case .success = result { result = flow }
            case .event(let event):
                src.push(event)
            }
        }
        return result
    }
}

import GstKit
import ParleyCore

/// One piece of work an async element queues: a segment to transcribe, a
/// text to translate. `run` may emit partial outputs while it works (they
/// leave in order); `placeholder` is what stands in for it if the queue
/// policy skips it.
public struct StageWork: Sendable {
    public typealias Emit = @Sendable (StageOutput) -> Void
    /// Runs the work (an element may run one work inside another: a held text's, once released).
    public let run: @Sendable (_ emit: @escaping Emit) async -> StageOutput
    public let placeholder: @Sendable (AsyncStage.Queue.SkipReason) -> StageOutput

    public init(progressive run: @escaping @Sendable (_ emit: @escaping Emit) async -> StageOutput,
                placeholder: @escaping @Sendable (AsyncStage.Queue.SkipReason) -> StageOutput) {
        self.run = run
        self.placeholder = placeholder
    }

    public init(_ run: @escaping @Sendable () async -> StageOutput,
                placeholder: @escaping @Sendable (AsyncStage.Queue.SkipReason) -> StageOutput) {
        self.init(progressive: { _ in await run() }, placeholder: placeholder)
    }
}

/// The kind of element that turns segments into results asynchronously:
/// inputs (buffers and the events between them) become `StageWork`, which
/// runs through the ordered work queue with bounded concurrency; results
/// leave strictly in segment order, pushed by the stage's own thread, with
/// the serialized events kept in their places. cloudstt and streamtranslator
/// are of this kind.
///
/// The element returns work; the driver queues it, forwards events (input
/// caps stay, the src template's caps follow STREAM_START), handles flushes,
/// starts the stage after `start()` and stops it before `stop()`.
public protocol AsyncTransform: ElementImpl {
    /// The element's stage (made in `init` with the element's handle).
    var stage: AsyncStage { get }
    /// The queue settings the stage starts with (READY→PAUSED).
    var queueConfiguration: AsyncStage.Queue.Configuration { get }
    /// One input buffer; the work it completes, if any.
    func accept(_ buffer: Buffer) -> [StageWork]
    /// A sink-pad event, before it is routed; the work it completes (a
    /// speech-end event closes a segment, EOS the last one). The event
    /// itself then keeps its place behind that work.
    func sinkEvent(_ event: Event) -> [StageWork]
    /// The event to send downstream in place of a serialized input event
    /// (a text-to-speech element turns a byte-format segment into TIME).
    func outputEvent(for event: Event) -> Event
    /// The caps pushed after STREAM_START; nil = the src template's (which
    /// must then be fixed). An element whose rate depends on its provider
    /// says here which it chose at `open()`.
    var outputCaps: Caps? { get }
}

extension AsyncTransform {
    public func sinkEvent(_ event: Event) -> [StageWork] { [] }
    public func outputEvent(for event: Event) -> Event { event }
    public var outputCaps: Caps? { nil }
    public static var bridgeKind: ElementKind { .element }
    public static func makeDriver(for implementation: Self) -> any ElementDriver {
        AsyncTransformDriver(implementation)
    }
}

final class AsyncTransformDriver<Transform: AsyncTransform>: ElementDriver {
    let transform: Transform
    let templateCaps: Caps
    let log = Transform.log

    init(_ transform: Transform) {
        self.transform = transform
        templateCaps = Caps(Transform.pads.src ?? "ANY") ?? Caps("ANY")!
    }

    var implementation: any ElementImpl { transform }

    func changeState(_ change: StateChange, after: Bool) -> Bool {
        // Before the pads deactivate, the queue flushes: a streaming thread
        // waiting for room (queue-policy=block) returns, so deactivation can
        // take its stream lock, and work in flight is cancelled. The push
        // thread is joined once the pads deactivated (a push blocked in a
        // prerolling sink returns flushing then), before the element's stop.
        if change == .pausedToReady && !after { transform.stage.flushStart() }
        if change == .pausedToReady && after { transform.stage.stop() }
        guard lifeCycle(change, after: after) else { return false }
        if change == .readyToPaused && !after { transform.stage.start(transform.queueConfiguration) }
        return true
    }

    func chain(pad: Pad, buffer: Buffer) -> FlowResult {
        log.verbose("buffer in: \(buffer.summary)", object: element)
        return submit(transform.accept(buffer))
    }

    func event(pad: Pad, event: Event) -> Bool {
        guard pad.isSink else { return pad.forwardDefault(event, parent: element) }
        log.debug("event in: \(event.typeName)", object: element)
        _ = submit(transform.sinkEvent(event))
        return transform.stage.route(transform.outputEvent(for: event), pad: pad,
                                     outputCaps: transform.outputCaps ?? templateCaps)
    }

    /// LATENCY on the src pad: upstream's figures, plus the `latency`
    /// property when live. Answered here rather than by the default handler,
    /// which reports a minimum of 0 for a non-live upstream (below what the
    /// elements before said) and nothing of this element's own when live.
    func query(pad: Pad, query: Query) -> Bool {
        guard !pad.isSink, case .latency = query.view else { return pad.queryDefault(query, parent: element) }
        guard let upstream = element.sinkPad?.peerLatency() else { return false }
        let reported = upstream.live ? upstream.adding(transform.stage.latency) : upstream
        log.debug("latency: upstream \(upstream), reporting \(reported)", object: element)
        query.setLatency(reported)
        return true
    }

    private func submit(_ work: [StageWork]) -> FlowResult {
        var result = FlowResult.ok
        for item in work {
            let flow = transform.stage.submit(progressive: item.run, placeholder: item.placeholder)
            if case .success = result { result = flow }
        }
        return result
    }
}

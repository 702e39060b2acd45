import CGStreamer
import GstBridge

/// The kind of element that ends a stream (GstBaseSink: preroll, clock sync
/// and EOS are the base class's). `start`/`stop` run when the base sink
/// starts and stops (READY↔PAUSED).
public protocol Sink: ElementImpl {
    /// One buffer to consume. Throw `.error` after posting an error.
    func render(_ buffer: Buffer) throws(FlowError)
    /// Sees every event reaching the sink before the base class handles it.
    func sinkEvent(_ event: Event)
    /// Whether the pipeline waits for this sink's first buffer before it
    /// plays (GstBaseSink's `async`, which the user may still set). A sink of
    /// sparse results says false: a transcript comes only once someone has
    /// spoken, and a pipeline must not wait for one to start playing.
    static var waitsForPreroll: Bool { get }
}

extension Sink {
    public func sinkEvent(_ event: Event) {}
    public static var waitsForPreroll: Bool { true }
    public static var bridgeKind: ElementKind { .sink }
    public static func makeDriver(for implementation: Self) -> any ElementDriver { SinkDriver(implementation) }
}

final class SinkDriver<S: Sink>: ElementDriver {
    let sink: S
    let log = S.log
    init(_ sink: S) {
        self.sink = sink
        if !S.waitsForPreroll {
            gst_base_sink_set_async_enabled(UnsafeMutableRawPointer(sink.element.pointer).assumingMemoryBound(to: GstBaseSink.self), 0)
        }
    }
    var implementation: any ElementImpl { sink }

    func changeState(_ change: StateChange, after: Bool) -> Bool {
        lifeCycle(change, after: after, includingStartStop: false)
    }
    func baseStart() -> Bool { startImplementation() }
    func baseStop() -> Bool { sink.stop(); return true }
    func render(_ buffer: Buffer) -> FlowResult {
        log.verbose("render: \(buffer.summary)", object: element)
        do throws(FlowError) { try sink.render(buffer); return .ok } catch { return .failure(error) }
    }
    func sinkEvent(_ event: Event) -> Bool { sink.sinkEvent(event); return true }
}

/// The kind of element that produces a stream on its own thread (GstPushSrc).
public protocol Source: ElementImpl {
    static var isLive: Bool { get }
    /// The next buffer; throw `.eos` at the end, `.flushing` after `unlock`.
    func create() throws(FlowError) -> Buffer
    /// Wake a blocked `create` (flushing or stopping).
    func unlock()
    func unlockStop()
}

extension Source {
    /// Whether new instances are live (GstBaseSrc's is-live); `setLive`
    /// changes one instance, before it starts.
    public static var isLive: Bool { false }
    public func unlock() {}
    public func unlockStop() {}
    public static var bridgeKind: ElementKind { .source(live: isLive) }
    public static func makeDriver(for implementation: Self) -> any ElementDriver { SourceDriver(implementation) }

    /// Makes this source live or not (gst_base_src_set_live): a live source
    /// produces only in PLAYING and its pipeline does not preroll. Takes
    /// effect at the next READY→PAUSED; set it from a property, as
    /// audiotestsrc's `is-live` is.
    public func setLive(_ live: Bool) {
        gst_base_src_set_live(UnsafeMutableRawPointer(element.pointer).assumingMemoryBound(to: GstBaseSrc.self), live ? 1 : 0)
    }
}

final class SourceDriver<S: Source>: ElementDriver {
    let source: S
    let log = S.log
    init(_ source: S) { self.source = source }
    var implementation: any ElementImpl { source }

    func changeState(_ change: StateChange, after: Bool) -> Bool {
        lifeCycle(change, after: after, includingStartStop: false)
    }
    func baseStart() -> Bool { startImplementation() }
    func baseStop() -> Bool { source.stop(); return true }
    func create() -> Result<Buffer, FlowError> {
        do throws(FlowError) {
            let buffer = try source.create()
            log.verbose("created: \(buffer.summary)", object: element)
            return .success(buffer)
        } catch {
            log.debug("create ended: \(error)", object: element)
            return .failure(error)
        }
    }
    func unlock() { source.unlock() }
    func unlockStop() { source.unlockStop() }
}

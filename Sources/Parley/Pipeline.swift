import CGStreamer
import Foundation
import GstBridge
import GstKit
import ParleyCore
import Synchronization

public enum PipelineError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The description does not parse or names something that does not exist.
    case invalidDescription(String)
    case stateChangeFailed(String)
    /// An element posted an error.
    case elementError(source: String, message: String, debug: String?)
    case noSuchElement(String)
    case noSuchProperty(element: String, property: String)

    public var description: String {
        switch self {
        case .invalidDescription(let message): message
        case .stateChangeFailed(let message): message
        case .elementError(let source, let message, _): "\(source): \(message)"
        case .noSuchElement(let name): "no element named \"\(name)\" in the pipeline"
        case .noSuchProperty(let element, let property): "element \"\(element)\" has no property \"\(property)\""
        }
    }
}

/// A GStreamer pipeline running in this process, with its bus turned into
/// typed `PipelineEvent`s.
///
///     Parley.initialize()
///     let pipeline = try Pipeline(launch: "audiotestsrc num-buffers=10 ! fakesink")
///     try pipeline.play()
///     for await event in pipeline.events { if case .eos = event { break } }
///     pipeline.stop()
public final class Pipeline: @unchecked Sendable {
    // @unchecked: the GstPipeline is thread-safe; Swift state is behind Mutexes.
    public let events: AsyncStream<PipelineEvent>
    private let continuation: AsyncStream<PipelineEvent>.Continuation
    private let pipeline: UnsafeMutablePointer<GstElement>
    private let bus: UnsafeMutablePointer<GstBus>
    private let watcherDone = DispatchSemaphore(value: 0)
    private let stopped = Flag()
    private let firstError = Mutex<PipelineError?>(nil)

    /// Parses a gst-launch-1.0 style description.
    public init(launch description: String) throws(PipelineError) {
        Parley.initialize()
        var error: UnsafeMutablePointer<GError>?
        let parsed = gst_parse_launch_full(description, nil, GST_PARSE_FLAG_FATAL_ERRORS, &error)
        if let error {
            let message = String(cString: error.pointee.message)
            g_error_free(error)
            if let parsed { parley_object_unref(parsed) }
            throw .invalidDescription(message)
        }
        guard let parsed else { throw .invalidDescription("empty pipeline") }
        pipeline = parsed
        bus = gst_element_get_bus(parsed)
        (events, continuation) = AsyncStream.makeStream(of: PipelineEvent.self)
        startWatching()
    }

    deinit {
        stop()
        parley_object_unref(UnsafeMutableRawPointer(bus))
        parley_object_unref(pipeline)
    }

    /// Sets the pipeline PLAYING.
    public func play() throws(PipelineError) {
        if gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE {
            // The element that failed posted why on the bus; give the watcher
            // a moment to read it so the user sees that, not a generic line.
            for _ in 0..<40 {
                if let error = firstError.withLock({ $0 }) { throw error }
                usleep(25_000)
            }
            throw .stateChangeFailed("the pipeline could not start")
        }
    }

    public func pause() throws(PipelineError) {
        if gst_element_set_state(pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE {
            throw .stateChangeFailed("the pipeline could not pause")
        }
    }

    /// Asks the sources to finish: everything in flight drains, then `.eos` arrives.
    public func sendEOS() {
        gst_element_send_event(pipeline, gst_event_new_eos())
    }

    /// Stops the pipeline (NULL state) and ends `events`. Idempotent.
    public func stop() {
        let wasStopped = stopped.testAndSet()
        guard !wasStopped else { return }
        gst_element_set_state(pipeline, GST_STATE_NULL)
        // A bus in NULL state is flushing, so no message can wake the watcher:
        // it polls the stopped flag instead.
        watcherDone.wait()
        continuation.finish()
    }

    /// Plays to EOS, handing every event to `onEvent`; throws the first error.
    public func run(onEvent: (PipelineEvent) -> Void = { _ in }) async throws(PipelineError) {
        // State changes block (elements load models, threads are joined):
        // they run on a thread of their own, not on Swift's small pool.
        let started: Result<Void, PipelineError> = await offPool { [self] in Result { () throws(PipelineError) in try play() } }
        try started.get()
        var failure: PipelineError?
        for await event in events {
            onEvent(event)
            if case .eos = event { break }
            if case .error(let source, let message, let debug) = event {
                failure = .elementError(source: source, message: message, debug: debug)
                break
            }
        }
        await offPool { [self] in stop() }
        if let failure { throw failure }
    }

    private func offPool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: body()) }.start()
        }
    }

    /// Position of the pipeline in stream time, ns.
    public var position: UInt64? {
        var position: gint64 = 0
        guard gst_element_query_position(pipeline, GST_FORMAT_TIME, &position) != 0, position >= 0 else { return nil }
        return UInt64(position)
    }

    /// The element named `name` (gst-launch `name=` or the default name).
    public func element(named name: String) -> UnsafeMutablePointer<GstElement>? {
        guard let found = gst_bin_get_by_name(UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self), name) else {
            return nil
        }
        parley_object_unref(found)  // the pipeline keeps it alive
        return found
    }

    /// Sets a property from its string form, as gst-launch would.
    public func set(_ property: String, of elementName: String, to value: String) throws(PipelineError) {
        guard let element = element(named: elementName) else { throw .noSuchElement(elementName) }
        guard findProperty(UnsafeMutableRawPointer(element), property) != nil else {
            throw .noSuchProperty(element: elementName, property: property)
        }
        gst_util_set_object_arg(UnsafeMutableRawPointer(element).assumingMemoryBound(to: GObject.self), property, value)
    }

    /// Reads a property of an element in the pipeline.
    public func get(_ property: String, of elementName: String) throws(PipelineError) -> PropertyValue {
        guard let element = element(named: elementName) else { throw .noSuchElement(elementName) }
        guard let value = GstKit.readProperty(UnsafeMutableRawPointer(element), property) else {
            throw .noSuchProperty(element: elementName, property: property)
        }
        return value
    }

    private func startWatching() {
        let bus = UnsafeSendable(self.bus)
        let thread = Thread { [continuation, watcherDone, stopped, weak self] in
            defer { watcherDone.signal() }
            while !stopped.isSet {
                guard let message = gst_bus_timed_pop(bus.value, GstClockTime(50 * Gst.millisecond)) else { continue }
                defer { parley_message_unref(message) }
                guard let event = Self.translate(message) else { continue }
                if case .error(let source, let text, let debug) = event {
                    self?.firstError.withLock { $0 = $0 ?? .elementError(source: source, message: text, debug: debug) }
                }
                continuation.yield(event)
            }
        }
        thread.name = "parley-bus"
        thread.start()
    }

    private static func translate(_ message: UnsafeMutablePointer<GstMessage>) -> PipelineEvent? {
        let source = message.pointee.src.map { String(cString: parley_object_name($0)) } ?? ""
        switch message.pointee.type {
        case GST_MESSAGE_EOS:
            return .eos
        case GST_MESSAGE_INFO:
            var error: UnsafeMutablePointer<GError>?
            var debug: UnsafeMutablePointer<gchar>?
            gst_message_parse_info(message, &error, &debug)
            _ = takeGString(debug)
            guard let error else { return nil }
            defer { g_error_free(error) }
            return .info(source: source, message: String(cString: error.pointee.message))
        case GST_MESSAGE_ERROR, GST_MESSAGE_WARNING:
            var error: UnsafeMutablePointer<GError>?
            var debug: UnsafeMutablePointer<gchar>?
            if message.pointee.type == GST_MESSAGE_ERROR {
                gst_message_parse_error(message, &error, &debug)
            } else {
                gst_message_parse_warning(message, &error, &debug)
            }
            let text = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            let details = takeGString(debug)
            return message.pointee.type == GST_MESSAGE_ERROR
                ? .error(source: source, message: text, debug: details)
                : .warning(source: source, message: text, debug: details)
        case GST_MESSAGE_ELEMENT:
            guard let structure = gst_message_get_structure(message) else { return nil }
            return .fromElementMessage(Structure(borrowing: structure), source: source)
        case GST_MESSAGE_STATE_CHANGED:
            guard let src = message.pointee.src, gst_object_get_parent(src) == nil else { return nil }
            var old = GST_STATE_NULL, new = GST_STATE_NULL, pending = GST_STATE_NULL
            gst_message_parse_state_changed(message, &old, &new, &pending)
            return .stateChanged(from: String(cString: gst_element_state_get_name(old)),
                                 to: String(cString: gst_element_state_get_name(new)))
        default:
            return nil
        }
    }
}

import Foundation
import GstKit
import ParleyCore
import Synchronization

public enum PipelineError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The description does not parse or names something that does not exist.
    case invalidDescription(String)
    case stateChangeFailed(String)
    /// An element posted an error.
    case elementError(source: String, message: String, debug: String?)
    /// An element could not read the data it was given: no type found, not
    /// decodable, a container that does not parse (`message` names the file
    /// when one file source fed it). Running again on the same input, here
    /// or on another machine, reads it no better.
    case unreadableData(source: String, message: String, debug: String?)
    case noSuchElement(String)
    case noSuchProperty(element: String, property: String)

    public var description: String {
        switch self {
        case .invalidDescription(let message): message
        case .stateChangeFailed(let message): message
        case .elementError(let source, let message, _), .unreadableData(let source, let message, _): "\(source): \(message)"
        case .noSuchElement(let name): "no element named \"\(name)\" in the pipeline"
        case .noSuchProperty(let element, let property): "element \"\(element)\" has no property \"\(property)\""
        }
    }

    /// GStreamer's debug details of an element's error (file, function, element path), if any.
    public var debug: String? {
        switch self {
        case .elementError(_, _, let debug), .unreadableData(_, _, let debug): debug
        default: nil
        }
    }

    /// `debug` as a user reads it: what the element said, without the call
    /// site GStreamer puts first (`ElementImpl.swift(185): lifeCycle(...) ():
    /// /GstPipeline:pipeline0/...:`); nil when that is all there is.
    public var details: String? {
        guard let debug else { return nil }
        let said = debug.split(separator: "\n", omittingEmptySubsequences: false)
            .drop { $0.contains(" (): ") && $0.hasSuffix(":") }
            .joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        return said.isEmpty ? nil : said
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
    private let pipeline: GstKit.Element
    private let bus: Bus
    private let watcherDone = DispatchSemaphore(value: 0)
    private let stopped = Flag()
    /// The errors the bus thread has read.
    private let errors = Mutex(PostedErrors())

    /// The first error posted, and the first about the data itself (`Message.isAboutTheData`).
    private struct PostedErrors {
        var first: PipelineError?
        var firstAboutData: PipelineError?

        mutating func record(_ error: PipelineError) {
            first = first ?? error
            if case .unreadableData = error { firstAboutData = firstAboutData ?? error }
        }
    }

    /// Elements that fail together post their errors from their own threads,
    /// in any order: a file that is not audio makes decodebin say "general
    /// stream error" and wavparse "of a different type", either first. How
    /// long, after the first, a failure waits for one about the data.
    static let errorSettling: Duration = .milliseconds(250)

    /// Why the pipeline failed, once the first error has been read: the
    /// first error about the data if one comes within `errorSettling` (it
    /// says what is wrong, and that no rerun helps), else the first error.
    /// Blocks for at most `errorSettling`.
    private func settledFailure() -> PipelineError {
        let deadline = ContinuousClock.now + Self.errorSettling
        while ContinuousClock.now < deadline {
            if let error = errors.withLock({ $0.firstAboutData }) { return error }
            usleep(10_000)
        }
        let posted = errors.withLock { $0 }
        return posted.firstAboutData ?? posted.first ?? .stateChangeFailed("the pipeline failed")
    }

    /// Parses a gst-launch-1.0 style description.
    public init(launch description: String) throws(PipelineError) {
        Parley.initialize()
        do {
            pipeline = try GstKit.Element.launch(description)
        } catch {
            throw .invalidDescription(error.description)
        }
        guard let bus = pipeline.bus else { throw .invalidDescription("the description is not a pipeline") }
        self.bus = bus
        (events, continuation) = AsyncStream.makeStream(of: PipelineEvent.self)
        startWatching()
    }

    deinit { stop() }

    /// Sets the pipeline PLAYING.
    public func play() throws(PipelineError) {
        if !pipeline.setState(.playing) {
            // The element that failed posted why on the bus; give the watcher
            // a moment to read it so the user sees that, not a generic line.
            for _ in 0..<40 {
                if errors.withLock({ $0.first }) != nil { throw settledFailure() }
                usleep(25_000)
            }
            throw .stateChangeFailed("the pipeline could not start")
        }
    }

    public func pause() throws(PipelineError) {
        if !pipeline.setState(.paused) {
            throw .stateChangeFailed("the pipeline could not pause")
        }
    }

    /// The pipeline's state once a change in progress settles (PAUSED once
    /// every sink prerolled), waiting at most `timeout`; nil if it has not
    /// settled by then or the change failed.
    public func settledState(within timeout: Duration) -> ElementState? {
        let (seconds, attoseconds) = timeout.components
        return pipeline.settledState(timeoutNs: UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds)) / 1_000_000_000)
    }

    /// Asks the sources to finish: everything in flight drains, then `.eos` arrives.
    public func sendEOS() {
        pipeline.sendEOS()
    }

    /// Stops the pipeline (NULL state) and ends `events`. Idempotent.
    /// It blocks until every element has stopped (threads joined, work
    /// cancelled): from async code, call it off Swift's cooperative pool
    /// (on a thread of your own), as `run` does, or the pool can starve.
    public func stop() {
        let wasStopped = stopped.testAndSet()
        guard !wasStopped else { return }
        pipeline.setState(.null)
        // A bus in NULL state is flushing, so no message can wake the watcher:
        // it polls the stopped flag instead.
        watcherDone.wait()
        continuation.finish()
    }

    /// Plays to EOS, handing every event to `onEvent`; throws the first
    /// error, or `unreadableData` when one about the data itself comes
    /// within `errorSettling` of it.
    public func run(onEvent: (PipelineEvent) -> Void = { _ in }) async throws(PipelineError) {
        // State changes block (elements load models, threads are joined):
        // they run on a thread of their own, not on Swift's small pool.
        try await OffPool.run { [self] () throws(PipelineError) in try play() }
        var failure: PipelineError?
        for await event in events {
            onEvent(event)
            if case .eos = event { break }
            if case .error = event {
                failure = await OffPool.run { [self] in settledFailure() }
                break
            }
        }
        await OffPool.run { [self] in stop() }
        if let failure { throw failure }
    }

    /// Stops now, but first gives each element that writes its file's
    /// header only at the end of the stream (wavenc, the muxers) its EOS, so
    /// what was written stays playable. For a second Ctrl-C: what was in
    /// flight is dropped, what reached the files is kept. Blocks like `stop`.
    public func stopKeepingFiles() {
        let finishers = Self.fileFinishers.flatMap { pipeline.descendants(factory: $0) }
        for element in finishers { element.sendEOS() }
        // The EOS travels to the file sink (and the header is rewritten) on
        // the elements' streaming threads; give them a moment, not forever.
        if !finishers.isEmpty { usleep(300_000) }
        stop()
    }

    /// Elements that complete a file's header on EOS.
    static let fileFinishers = ["wavenc", "mp4mux", "qtmux", "matroskamux", "webmmux", "oggmux", "flacenc"]

    /// `value` as one gst-launch value: double-quoted, with `\` and `"`
    /// escaped, so a file name with spaces or quotes stays one property
    /// value and cannot add elements. `"filesrc location=\(Pipeline.quoted(path))"`.
    public static func quoted(_ value: String) -> String {
        var out = "\""
        for character in value {
            if character == "\\" || character == "\"" { out.append("\\") }
            out.append(character)
        }
        return out + "\""
    }

    /// Position of the pipeline in stream time, ns.
    public var position: UInt64? { pipeline.position }

    /// Running time now by the pipeline's clock, ns (nil unless PLAYING): the
    /// timeline of segment and latency times, so an application can say
    /// where "now" falls among them (a live source is capturing it).
    public var runningTime: UInt64? { pipeline.runningTimeNow }

    /// How far the input has been read and, for a file, how long it is
    /// (stream time, ns). Asked of the first vadsegmenter, whose query goes
    /// upstream to the parser or source that knows (the pipeline's own
    /// position comes from its sinks, which a text-only tail or a sink that
    /// does not sync leaves at 0); without one, of the pipeline.
    public var inputProgress: (position: UInt64, duration: UInt64?)? {
        let probe = pipeline.descendants(factory: "vadsegmenter").first ?? pipeline
        guard let position = probe.position ?? pipeline.position else { return nil }
        return (position, probe.duration ?? pipeline.duration)
    }

    /// The element named `name` (gst-launch `name=` or the default name):
    /// a typed handle with typed properties.
    public func element(named name: String) -> GstKit.Element? { pipeline.child(named: name) }

    /// Every element made by `factory` (e.g. "sessionrecorder"), at any depth.
    public func elements(factory: String) -> [GstKit.Element] { pipeline.descendants(factory: factory) }

    /// Every element in the pipeline, at any depth.
    public var elements: [GstKit.Element] { pipeline.descendants }

    /// The sinks whose `location` is a file they create: GStreamer's file
    /// sinks and Parley's transcriptsink. (sessionrecorder makes its own
    /// folder; a `location` of `-` or empty is standard output.)
    public static let fileSinkFactories = ["filesink", "transcriptsink", "multifilesink", "splitmuxsink"]

    /// Creates the missing folders above every file sink's `location`, as
    /// `mkdir -p` would, so that a pipeline file's `out/transcript.srt` works
    /// from any directory. A sink's own open still reports what else is wrong
    /// with the path.
    public func createOutputFolders() throws(PipelineError) {
        for factory in Self.fileSinkFactories {
            for sink in elements(factory: factory) {
                guard let location = sink.property("location")?.string, !location.isEmpty, location != "-" else { continue }
                let folder = (location as NSString).deletingLastPathComponent
                guard !folder.isEmpty else { continue }
                if FileManager.default.fileExists(atPath: folder) { continue }
                if let reason = Self.makeFolders(folder) {
                    throw .elementError(source: sink.name, message: "cannot create the folder \"\(folder)\" for location \"\(location)\": \(reason)", debug: nil)
                }
            }
        }
    }

    /// `mkdir -p`: nil when `folder` exists or was made, else the system's
    /// reason (FileManager's error on Linux does not carry it).
    private static func makeFolders(_ folder: String) -> String? {
        var path = folder.hasPrefix("/") ? "" : "."
        for component in folder.split(separator: "/") {
            path += "/" + component
            if mkdir(path, 0o777) != 0 && errno != EEXIST { return String(cString: strerror(errno)) }
        }
        return nil
    }

    /// Sets a property from its string form, as gst-launch would.
    public func set(_ property: String, of elementName: String, to value: String) throws(PipelineError) {
        guard let element = element(named: elementName) else { throw .noSuchElement(elementName) }
        do {
            try element.setProperty(property, fromString: value)
        } catch {
            switch error {
            case .noSuchProperty: throw .noSuchProperty(element: elementName, property: property)
            case .notParseable(let typeName):
                throw .invalidDescription("\"\(value)\" is not a valid \(typeName) for \(elementName).\(property)")
            case .outOfRange: throw .invalidDescription("\(value) is out of range for \(elementName).\(property)")
            }
        }
    }

    /// Reads a property of an element in the pipeline.
    public func get(_ property: String, of elementName: String) throws(PipelineError) -> PropertyValue {
        guard let element = element(named: elementName) else { throw .noSuchElement(elementName) }
        guard let value = element.property(property) else {
            throw .noSuchProperty(element: elementName, property: property)
        }
        return value
    }

    private func startWatching() {
        let bus = bus
        let thread = Thread { [continuation, watcherDone, stopped, weak self] in
            defer { watcherDone.signal() }
            while !stopped.isSet {
                guard let message = bus.pop(timeout: 50 * Gst.millisecond) else { continue }
                guard let event = Self.translate(message) else { continue }
                if case .error(let source, let text, let debug) = event {
                    let error: PipelineError = message.isAboutTheData
                        ? .unreadableData(source: source, message: text, debug: debug)
                        : .elementError(source: source, message: text, debug: debug)
                    self?.errors.withLock { $0.record(error) }
                }
                continuation.yield(event)
            }
        }
        thread.name = "parley-bus"
        thread.start()
    }

    /// An error or warning about the data itself (GStreamer's stream domain:
    /// "Could not determine type of stream", a decoder that cannot decode)
    /// names the file it came from, as a user who passed several needs to
    /// know: `… (reading "talk.flac")`. GStreamer's own text names the
    /// element (typefind, inside decodebin), not what it was reading. So
    /// does a file source's own resource error, which says only "Resource
    /// not found." (the path is in the debug details).
    private static func naming(_ text: String, of message: Message) -> String {
        let domain = message.errorDomain
        guard domain == .stream || domain == .resource, let source = message.sourceElement else { return text }
        guard let file = domain == .stream ? fileRead(upstreamOf: source) : fileOfSource(source),
              !text.contains(file) else { return text }
        return "\(text) (reading \"\(file)\")"
    }

    /// The file a source element reads: its `location`, when nothing is upstream of it.
    private static func fileOfSource(_ element: Element) -> String? {
        guard element.upstreamNeighbours.isEmpty, case .string(let location?)? = element.property("location") else { return nil }
        return location
    }

    /// The file whose data reaches `element`: the `location` of the one
    /// source upstream of the top-level element that holds it (nil when
    /// there is none, or several feed it, as a mixer of two files).
    static func fileRead(upstreamOf element: Element) -> String? {
        var topLevel = element
        while let parent = topLevel.parent, parent.parent != nil { topLevel = parent }
        var seen: Set<String> = [], waiting = [topLevel], files: Set<String> = []
        // Top-level names are unique in a pipeline; a few dozen elements at most.
        while let next = waiting.popLast(), seen.count < 64 {
            guard seen.insert(next.name).inserted else { continue }
            if let file = fileOfSource(next) { files.insert(file) }
            waiting.append(contentsOf: next.upstreamNeighbours)
        }
        return files.count == 1 ? files.first : nil
    }

    private static func translate(_ message: Message) -> PipelineEvent? {
        let source = message.sourceName
        switch message.view {
        case .eos: return .eos
        case .info(let text, _): return .info(source: source, message: text)
        case .warning(let text, let debug): return .warning(source: source, message: naming(text, of: message), debug: debug)
        case .error(let text, let debug):
            // decodebin's "general stream error" says nothing a user can act on.
            let said = message.endedWithoutData ? "nothing could be decoded: every stream ended before any data" : text
            return .error(source: source, message: naming(said, of: message), debug: debug)
        case .element(let structure): return .fromElementMessage(structure, source: source)
        case .stateChanged(let from, let to, let isTopLevel):
            return isTopLevel ? .stateChanged(from: from.description, to: to.description) : nil
        case .other: return nil
        }
    }
}

import Foundation
import GstKit
import ParleyCore
import ParleySpeech

/// Runs a pipeline file on a benchmark stream and keeps what its bus says.
///
/// The pipeline marks where audio comes in with a `SOURCE` fragment
/// (`#@ fragment SOURCE="autoaudiosrc"`, used as `${SOURCE} ! ...`); the
/// bench puts a `recordingsrc` playing the stream there. If it also
/// declares a `SINK` fragment, the bench puts its own probe there, which
/// notes when each segment's output leaves (voice to voice). The pipeline
/// needs a `vadsegmenter`: segments are what the bench measures.
public struct BenchPipeline: Sendable {
    public var file: PipelineFile
    public var overrides: [String: String]

    public init(file: PipelineFile, overrides: [String: String]) throws(BenchError) {
        guard file.variables.contains(where: { $0.name == "SOURCE" && $0.kind == .fragment }) else {
            throw .pipeline("\(file.path) declares no SOURCE fragment: parley bench plays the corpus in its place. "
                            + "Declare one (#@ fragment SOURCE=\"autoaudiosrc\") and start the pipeline with ${SOURCE}")
        }
        for name in ["SOURCE", "SINK"] where overrides[name] != nil {
            throw .pipeline("--set \(name): parley bench sets \(name) itself")
        }
        self.file = file
        self.overrides = overrides
    }

    /// Builds the pipeline once, without playing it, to refuse what the
    /// bench cannot measure before the corpus is decoded.
    public func checkMeasurable() throws(BenchError) {
        if let problem = Self.unmeasurable(try built(streamPath: "/dev/null")) { throw .pipeline(problem) }
    }

    /// The pipeline as the bench plays a recording at `streamPath`, built, not played.
    public func built(streamPath: String, session: String? = nil) throws(BenchError) -> Pipeline {
        _ = BenchRunner.probeRegistered
        let launch = try launch(streamPath: streamPath, paced: false, session: session)
        do {
            return try Pipeline(launch: launch)
        } catch {
            throw .pipeline(error.description)
        }
    }

    /// Why the bench cannot measure this pipeline, or nil.
    static func unmeasurable(_ pipeline: Pipeline) -> String? {
        guard !pipeline.elements(factory: "vadsegmenter").isEmpty else {
            return "the pipeline has no vadsegmenter: parley bench measures the segments it cuts"
        }
        // A push-to-talk segmenter cuts nothing unless someone holds the button.
        if let talk = pipeline.elements(factory: "vadsegmenter").first(where: { $0.propertyText("mode") == "ptt" }) {
            return "vadsegmenter \"\(talk.name)\" is in push-to-talk mode (mode=ptt), and parley bench presses no button: "
                + "give the pipeline mode=vad (or a MODE variable, as realtime-session has) to measure it"
        }
        return nil
    }

    public var hasSink: Bool { file.variables.contains { $0.name == "SINK" && $0.kind == .fragment } }

    /// The launch line with the bench's source (and sink) in place. A
    /// pipeline that records sessions (declares `SESSION`) records this run's
    /// in `session`, unless `--set SESSION=` chose a place.
    public func launch(streamPath: String, paced: Bool, session: String? = nil) throws(BenchError) -> String {
        var values = overrides
        if let session, values["SESSION"] == nil, file.variables.contains(where: { $0.name == "SESSION" }) {
            values["SESSION"] = session
        }
        values["SOURCE"] = "recordingsrc location=\"\(streamPath)\" pace=\(paced) chunk-ms=\(BenchRunner.chunkMs)"
        if hasSink { values["SINK"] = "parleybenchsink sync=false" }
        do {
            return PipelineFile.launchString(try file.tokens(overrides: values))
        } catch {
            throw .pipeline(error.description)
        }
    }
}

public enum BenchError: Error, Sendable, CustomStringConvertible {
    case pipeline(String)
    case corpus(CorpusError)
    case failed(String)

    public var description: String {
        switch self {
        case .pipeline(let message): message
        case .corpus(let error): error.description
        case .failed(let message): message
        }
    }
}

/// Everything one run's bus said that the report needs, by segment.
public struct RunObservations: Sendable {
    public struct Segment: Sendable, Equatable {
        public var id: UInt64
        /// Seconds on the stream's timeline.
        public var start: Double
        public var end: Double
        public var speechEnd: Double
        public var reason: String
    }
    public struct Output: Sendable, Equatable {
        public var at: UInt64
        public var kind: String
    }

    public var paced = true
    /// CLOCK_MONOTONIC ns of the stream's time 0 (recordingsrc's started-at).
    public var startedAt: UInt64?
    public var segments: [UInt64: Segment] = [:]
    public var transcripts: [UInt64: TextResult] = [:]
    /// Final, failed or skipped translations by segment, by element.
    public var translations: [UInt64: [String: TextResult]] = [:]
    /// Latency figures by segment, by stage key ("stt", or "translate@streamtranslator1"
    /// when several elements report one stage), by figure name.
    public var latency: [UInt64: [String: [String: Double]]] = [:]
    public var outputs: [UInt64: Output] = [:]
    /// How far the source got, seconds.
    public var position = 0.0
    public var wallSeconds = 0.0
    public var cpuSeconds = 0.0
    public var workerCPUSeconds = 0.0
    public var peakRSSMegabytes = 0.0
    public var workerPeakRSSMegabytes = 0.0
    public var interrupted = false
    public var failure: String?
    /// Which stages the pipeline has: "stt", "translate", "tts".
    public var stages: Set<String> = []
    public var silenceMs = 500.0
    public var prefixPaddingMs = 300.0
}

/// One run of a pipeline on the stream.
public final class BenchRunner: @unchecked Sendable {
    // @unchecked: `pipeline` is set once before the run and only read after;
    // `abort` may come from a signal handler's queue.
    public static let chunkMs = 20
    private let lock = NSLock()
    private var pipeline: Pipeline?
    private var aborted = false

    public init() {}

    /// Ends the run now (Ctrl-C): what finished is kept.
    public func abort() {
        let pipeline = lock.withLock { aborted = true; return self.pipeline }
        pipeline?.stop()
    }

    /// Plays `launch` to its end. `progress` gets the source's position and
    /// the stream's length in seconds, a few times a second, on another thread.
    /// The probe is registered once per process.
    static let probeRegistered: Bool = Parley.register([BenchSinkElement.self])

    public func run(launch: String, streamDuration: Double,
                    progress: @escaping @Sendable (Double, Double) -> Void) async -> RunObservations {
        _ = Self.probeRegistered
        var observed = RunObservations()
        let pipeline: Pipeline
        do {
            pipeline = try Pipeline(launch: launch)
        } catch {
            observed.failure = error.description
            return observed
        }
        if let problem = BenchPipeline.unmeasurable(pipeline) {
            observed.failure = problem
            return observed
        }
        // Every translation is a request the figures time: a corpus played
        // more than once (--runs) or played before would otherwise be
        // answered from streamtranslator's cache, in memory or on disk, and
        // its translate figures and voice to voice would be the cache's.
        for translator in pipeline.elements(factory: "streamtranslator") { try? translator.setProperty("cache", .bool(false)) }
        let vad = pipeline.elements(factory: "vadsegmenter")[0]
        observed.silenceMs = Double(vad.property("silence-duration-ms")?.int ?? 500)
        observed.prefixPaddingMs = Double(vad.property("prefix-padding-ms")?.int ?? 300)
        if !pipeline.elements(factory: "cloudstt").isEmpty { observed.stages.insert("stt") }
        if !pipeline.elements(factory: "streamtranslator").isEmpty { observed.stages.insert("translate") }
        if !(pipeline.elements(factory: "cloudtts") + pipeline.elements(factory: "espeaktts")).isEmpty { observed.stages.insert("tts") }
        let reporters = Self.stageReporters(pipeline)
        let source = pipeline.elements(factory: "recordingsrc").first
        let stillAborted = lock.withLock { () -> Bool in
            self.pipeline = pipeline
            return aborted
        }
        if stillAborted { observed.interrupted = true; return observed }

        let usage = ProcessUsage()
        let finished = Flag()
        let watcher = Thread {
            while !finished.isSet {
                usage.sample()
                progress(Double(source?.property("position-ms")?.int ?? 0) / 1000, streamDuration)
                usleep(250_000)
            }
        }
        watcher.start()
        let started = MonotonicClock.nanoseconds()
        do {
            try await pipeline.run { event in Self.observe(event, into: &observed, reporters: reporters) }
        } catch {
            observed.failure = error.description
        }
        finished.set()
        observed.wallSeconds = Double(MonotonicClock.nanoseconds() - started) / 1e9
        observed.position = Double(source?.property("position-ms")?.int ?? 0) / 1000
        let totals = usage.totals
        observed.cpuSeconds = totals.selfCPU
        observed.workerCPUSeconds = totals.childCPU
        observed.peakRSSMegabytes = totals.selfPeakMB
        observed.workerPeakRSSMegabytes = totals.childPeakMB
        observed.interrupted = lock.withLock { aborted }
        lock.withLock { self.pipeline = nil }
        return observed
    }

    /// The stage key of each element that reports a stage, by element name:
    /// the stage alone when one element reports it, else "stage@name". A name
    /// GStreamer made up ("streamtranslator7": a count over the process, which
    /// the bench's own parses and every run move on) is replaced by the one
    /// gst-launch-1.0 would give it, counted in this pipeline from 0 in the
    /// order of its names, so the same element has the same key in every run
    /// (one translator per language: "translate@streamtranslator1").
    static func stageReporters(_ pipeline: Pipeline) -> [String: String] {
        let byStage = [("stt", ["cloudstt"]), ("translate", ["streamtranslator"]), ("tts", ["cloudtts", "espeaktts"])]
        var keys: [String: String] = [:]
        for (stage, factories) in byStage {
            var labels: [String: String] = [:]
            for factory in factories {
                let names = pipeline.elements(factory: factory).map(\.name)
                let made = names.compactMap { name in madeUpNumber(name, factory: factory).map { (name, $0) } }.sorted { $0.1 < $1.1 }
                for (index, (name, _)) in made.enumerated() { labels[name] = "\(factory)\(index)" }
                for name in names where labels[name] == nil { labels[name] = name }
            }
            for (name, label) in labels { keys[name] = labels.count == 1 ? stage : "\(stage)@\(label)" }
        }
        return keys
    }

    /// 7 for "streamtranslator7" made by `factory`; nil for a name the pipeline gave.
    private static func madeUpNumber(_ name: String, factory: String) -> Int? {
        guard name.hasPrefix(factory) else { return nil }
        let suffix = name.dropFirst(factory.count)
        return suffix.isEmpty || !suffix.allSatisfy(\.isNumber) ? nil : Int(suffix)
    }

    static func observe(_ event: PipelineEvent, into observed: inout RunObservations, reporters: [String: String]) {
        func seconds(_ ns: UInt64) -> Double { Double(ns) / 1e9 }
        switch event {
        case .segment(let segment):
            guard let end = segment.end else { return }
            observed.segments[segment.segmentID] = RunObservations.Segment(
                id: segment.segmentID, start: seconds(segment.start), end: seconds(end),
                speechEnd: seconds(segment.speechEnd ?? end), reason: segment.reason ?? "")
        case .transcript(let result) where result.status != .partial:
            observed.transcripts[result.segmentID] = result
        case .translation(let result) where result.status != .partial:
            observed.translations[result.segmentID, default: [:]][result.source] = result
        case .latency(let report):
            let key = report.stage == "vad" ? "vad" : reporters[report.source] ?? report.stage
            var figures = report.figures
            // Speculation as counts, so the report shows the work thrown away:
            // requests started on likely ends, and whether the last was used.
            if let started = report.speculativeRequests { figures["speculative-requests"] = Double(started) }
            if let used = report.speculationUsed { figures["speculation-used"] = used ? 1 : 0 }
            observed.latency[report.segmentID, default: [:]][key, default: [:]].merge(figures) { $1 }
        case .elementMessage(_, let structure) where structure.name == RecordingMessage.name:
            if case .started(let startedAt, _, let paced)? = RecordingMessage(structure) {
                observed.startedAt = startedAt
                observed.paced = paced
            }
        case .elementMessage(let source, let structure) where structure.name == SpokenMessage.name:
            // How much faster each result was spoken to keep up (cloudtts overlap=compress): 1 when not.
            guard let spoken = SpokenMessage(structure), spoken.status == .final else { return }
            let key = reporters[source] ?? "tts"
            observed.latency[spoken.segmentID, default: [:]][key, default: [:]]["speed-up"] = spoken.speedUp
        case .elementMessage(_, let structure) where structure.name == BenchOutputMessage.name:
            guard let output = BenchOutputMessage(structure) else { return }
            if observed.outputs[output.segmentID].map({ output.at < $0.at }) ?? true {
                observed.outputs[output.segmentID] = RunObservations.Output(at: output.at, kind: output.kind.rawValue)
            }
        default:
            break
        }
    }
}

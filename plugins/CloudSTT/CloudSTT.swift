// cloudstt: speech to text, one result per speech segment, in order.
//
//     gst-launch-1.0 -m filesrc location=speech.wav ! wavparse ! audioconvert ! audioresample \
//         ! audio/x-raw,format=S16LE,channels=1,rate=16000 ! vadsegmenter ! cloudstt \
//         ! transcriptsink
//
// Segments come from vadsegmenter's `parley/speech-start`/`parley/speech-end`
// events; with no such events the audio is cut every max-segment-ms. Each
// segment becomes exactly one text buffer (PTS and duration = the segment's
// span, ParleySpeechMeta with status and language) and a `parley/transcript`
// message: a transcript, or an empty buffer with status skipped (shorter than
// min-segment-ms, or dropped by queue-policy) or failed, with a warning.
// Requests run through the framework's ordered queue (max-in-flight,
// max-pending, queue-policy): results leave in segment order. gpt-4o models
// stream: partial results (status partial, the text so far) precede each
// final. With its src pad unlinked the element ends the pipeline itself.
//
// Speculation (`speculate`, default auto: with provider=local only; in a
// live pipeline only, whatever the setting: read from a file, the audio
// comes faster than it was spoken, so there is no silence to wait for, and
// transcriptions started on every likely end at once would only flood the
// engine, past its queue): when
// vadsegmenter says a segment's end is likely (`parley/speech-likely-end`,
// after likely-end-ms of silence), the segment as heard so far is
// transcribed at once, off the ordered queue; when the silence confirms the
// end with no speech after it, that transcription is the segment's final,
// so the final is there 300 ms sooner (or more: the wait for it started
// earlier). When the speaker goes on (`parley/speech-resumed`) it is
// cancelled (dropped from the Whisper worker's queue, or its answer thrown
// away), unless keep-speculated-ms is set (off by default) and it covers
// that much audio that no kept text does: then it finishes and its text is
// kept, and later speculations and the final transcribe only the audio
// after it, with that text as the prompt, and put it in front of theirs (a
// long segment's final costs what a short one's does, at a word or more
// where a piece ends mid-sentence: benchmarks/stt/window.md).
// Nothing speculative is emitted: one final per segment, in order.
// The stt `parley/latency` message says how many were started, whether
// the final is one, and how much of the segment kept text covered
// (`speculative-requests`, `speculation-used`, `speculation-kept-ms`). With a
// paid provider each withdrawn likely end costs a request: opt in with
// speculate=always.
//
// Partials (`partials-every-ms`, off by default), for live captions: with
// Whisper-base, a segment's work begins when it opens; each time that much
// more of it has been heard and the worker has nothing else to do, it is
// transcribed as heard so far and the text goes out as a partial result
// (status partial, in order: before the segment's final, after the one
// before's). Two consecutive passes' common leading words are `stable` in
// `parley/transcript` (LocalAgreement, as whisper_streaming commits text): a
// caption can show them as settled. A pass never starts while a likely end's
// transcription stands, and a final waits at most for the one pass already
// running: the cost is measured in benchmarks/README.md. The final is the
// segment's own transcription, as without partials. A pass over the first
// second or so can loop ("he was not he was not …"): a phrase repeated to
// the pass's end is shown once (RepetitionLoop).
//
// Providers: `local` needs no network or key: it runs Whisper-base
// (faster-whisper, int8) in a worker process once scripts/setup has prepared
// it, pocketsphinx in-process otherwise (`local-engine` chooses), and says
// which at start; `openai`, `groq` and `compatible` (any base-url,
// e.g. a self-hosted faster-whisper server) speak `/v1/audio/transcriptions`
// over libcurl with retries (429 after Retry-After, 5xx, resets); `google`
// speaks Cloud Speech-to-Text v1 `speech:recognize` (GoogleTranscriber: the
// key in a header, `language` required since Google does not detect it). A
// rejected key is a fatal error naming the variable, never the key.
//
// `provider` may name a fallback chain, e.g. `provider=openai,groq,local`:
// a segment whose request fails for good (retries used up, a rejected key,
// a timeout) goes to the next provider, in order, and results still leave
// in segment order (ProviderFallback: breaker, `parley/fallback`). A
// provider whose key is rejected is skipped for the rest of the run; only
// when every provider is refused does the stream stop. `base-url`, `model`
// and `api-key-env` then take one comma-separated entry per provider.
import Foundation
import GstKit
import ParleyCore
import ParleySpeech
import PocketSphinxEngine
import Synchronization
import WhisperEngine

/// The chain's usable providers, made at NULL→READY, and its health.
struct Transcribers {
    var members: [any Transcriber]
    var chain: FallbackChain
}

/// What the provider answers with (`response-format`).
public enum STTResponseFormat: Int, Sendable, CaseIterable {
    case json = 0, verboseJSON = 1, text = 2

    var wireName: String {
        switch self {
        case .json: "json"
        case .verboseJSON: "verbose_json"
        case .text: "text"
        }
    }

    static let values = [
        EnumValue(json.rawValue, "json", "{\"text\": ...}"),
        EnumValue(verboseJSON.rawValue, "verbose_json", "Text, language and segments with no-speech probabilities"),
        EnumValue(text.rawValue, "text", "Plain text"),
    ]
}

/// What cloudstt makes of the speech (`task`).
public enum STTTask: Int, Sendable, CaseIterable {
    case transcribe = 0, translate = 1

    static let values = [
        EnumValue(transcribe.rawValue, "transcribe", "The speech as text, in the language spoken"),
        EnumValue(translate.rawValue, "translate",
                  "The speech as English text, whatever language it is in, detected (Whisper's translate task: /audio/translations for openai, groq and compatible, Whisper-base for local; not google, pocketsphinx or gpt-4o models); results' language en"),
    ]
}

/// How segments are uploaded (`upload-format`).
public enum UploadFormat: Int, Sendable, CaseIterable {
    case wav = 0, flac = 1

    var wireName: String { self == .flac ? "flac" : "wav" }

    static let values = [
        EnumValue(wav.rawValue, "wav", "16-bit PCM WAV"),
        EnumValue(flac.rawValue, "flac", "FLAC (libFLAC), lossless"),
    ]
}

public final class CloudSTTElement: ProviderElement {
    public static let DEFAULT_PROVIDER = "local"
    public static let DEFAULT_LANGUAGE = "en"
    public static let DEFAULT_MIN_SEGMENT_MS = 100
    public static let DEFAULT_MAX_SEGMENT_MS = 30_000
    public static let DEFAULT_PROMPT = ""
    public static let DEFAULT_CONTEXT_PROMPT = false
    public static let DEFAULT_TEMPERATURE = 0.0
    public static let DEFAULT_RESPONSE_FORMAT = STTResponseFormat.json
    public static let DEFAULT_TASK = STTTask.transcribe
    public static let DEFAULT_UPLOAD_FORMAT = UploadFormat.wav
    public static let DEFAULT_LOCAL_ENGINE = STTProvider.LocalEngine.auto
    public static let DEFAULT_LOCAL_THREADS = 0
    public static let DEFAULT_SPECULATE = STTSpeculation.auto
    public static let DEFAULT_PARTIALS_EVERY_MS = 0
    /// Off: keeping costs words where a piece ends mid-sentence (live-translate
    /// on conversation-12: p95 1515 -> 615 ms, WER 4.55 -> 5.84% at 6000,
    /// 8.44% at 3000; benchmarks/stt/window.md, "Keeping a withdrawn
    /// speculation's text"), over the half point #64 allows: opt in.
    public static let DEFAULT_KEEP_SPECULATED_MS = 0
    /// One request at a time: the local engines are serial, and context-prompt is exact.
    public static let DEFAULT_MAX_IN_FLIGHT = 1
    /// A segment's transcription once it ended, locally or from a nearby service.
    public static let DEFAULT_LATENCY_MS = 1000

    public static let metadata = ElementMetadata(
        factoryName: "cloudstt", typeName: "GstCloudSTT",
        longName: "Speech to text", klass: "Filter/Converter/Audio/Text",
        description: "Transcribes each speech segment (from vadsegmenter's events) into one text result, in order, through a bounded request queue",
        docURI: Release.documentation(for: "cloudstt"),
        example: "gst-launch-1.0 -m filesrc location=/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav ! wavparse ! vadsegmenter ! cloudstt ! fakesink")
    public static let pads = PadTemplates(
        sink: "audio/x-raw, format=(string)S16LE, layout=(string)interleaved, channels=(int)1, rate=(int)[ 8000, 48000 ]",
        src: "text/x-raw, format=(string)utf8")

    /// The chain's per-provider lists against its providers, as `open()` reads them.
    public static func settingsProblem(_ values: [String: String]) -> String? {
        ProviderFallback.problem(in: values, known: STTProvider.values)
    }

    public static let properties = ProviderFallback.specs(for: STTProvider.self, default: DEFAULT_PROVIDER, wording: .init(
        who: "Who transcribes", model: "Model name",
        modelNote: "google: its own, or latest_long, latest_short, phone_call...")) + [
        PropertySpec("prompt", nick: "Prompt", blurb: "Text that guides the transcription (names, spelling)",
                     .string(default: DEFAULT_PROMPT)),
        PropertySpec("context-prompt", nick: "Context prompt",
                     blurb: "Send the previous final transcript (after prompt) as the prompt, for continuity across segments; exact with max-in-flight=1",
                     .bool(default: DEFAULT_CONTEXT_PROMPT)),
        PropertySpec("temperature", nick: "Temperature", blurb: "Sampling temperature sent to the provider",
                     .double(default: DEFAULT_TEMPERATURE, range: 0...1)),
        PropertySpec("response-format", nick: "Response format", blurb: "What the provider answers with",
                     .enumeration(typeName: "GstParleySTTResponseFormat", values: STTResponseFormat.values,
                                  default: DEFAULT_RESPONSE_FORMAT.rawValue)),
        PropertySpec("task", nick: "Task", blurb: "Transcribe the speech, or translate it into English",
                     .enumeration(typeName: "GstParleySTTTask", values: STTTask.values, default: DEFAULT_TASK.rawValue)),
        PropertySpec("upload-format", nick: "Upload format", blurb: "How segments are uploaded; FLAC is about half the bytes",
                     .enumeration(typeName: "GstParleySTTUploadFormat", values: UploadFormat.values,
                                  default: DEFAULT_UPLOAD_FORMAT.rawValue)),
        PropertySpec("local-engine", nick: "Local engine", blurb: "What provider=local runs",
                     .enumeration(typeName: "GstParleySTTLocalEngine", values: STTProvider.LocalEngine.values,
                                  default: DEFAULT_LOCAL_ENGINE.rawValue)),
        PropertySpec("local-threads", nick: "Local threads", blurb: "CPU threads of the Whisper worker; 0 = all cores",
                     .int(default: DEFAULT_LOCAL_THREADS, range: 0...64)),
        PropertySpec("speculate", nick: "Speculate",
                     blurb: "Start transcribing a segment at vadsegmenter's likely end (parley/speech-likely-end), before the silence confirms it, and use that transcription if the speaker does not go on; never emitted early, one final per segment in order. Only in a live pipeline (a file has no silence to wait for). Costs a request per withdrawn likely end (paid providers: opt in with always)",
                     .enumeration(typeName: "GstParleySTTSpeculation", values: STTSpeculation.values, default: DEFAULT_SPECULATE.rawValue)),
        PropertySpec("keep-speculated-ms", nick: "Keep speculated",
                     blurb: "When the speaker goes on after a likely end whose transcription covers at least this much audio that no kept text does, let it finish and keep its text: later speculations and the final transcribe only the audio after it (with the kept text as the prompt), so a long segment's final costs what a short one's does, at some words where a piece ends mid-sentence (6000: one word in a 25 s prompt; shorter pieces lose more). 0 = cancel every withdrawn speculation (the default)",
                     .int(default: DEFAULT_KEEP_SPECULATED_MS, range: 0...60_000)),
        PropertySpec("partials-every-ms", nick: "Partials every",
                     blurb: "provider=local with Whisper-base: while a segment is open, transcribe it as heard so far each time this much more of it has been heard, when the engine is otherwise idle, and emit the text as a partial result (parley/transcript status partial, with the words two passes agreed on as stable), for live captions; costs CPU, not requests. 0 = off",
                     .int(default: DEFAULT_PARTIALS_EVERY_MS, range: 0...30_000)),
        PropertySpec("language", nick: "Language",
                     blurb: "BCP-47 tag of the speech (en, en-US, pt-BR, zh-Hans): providers and engines are sent its language subtag (google: the whole tag, a region added: en → en-US), results carry the tag; empty = let Whisper detect it (pocketsphinx knows en only; google needs one)",
                     .string(default: DEFAULT_LANGUAGE), check: languageProblem),
        PropertySpec("min-segment-ms", nick: "Minimum segment",
                     blurb: "Shorter segments are not transcribed: they give a skipped result",
                     .int(default: DEFAULT_MIN_SEGMENT_MS, range: 0...60_000)),
        PropertySpec("max-segment-ms", nick: "Maximum segment",
                     blurb: "With no speech events, audio is cut into segments this long",
                     .int(default: DEFAULT_MAX_SEGMENT_MS, range: 1000...600_000)),
    ] + Settings.stageSpecs(final: "Segments transcribed", skipped: "Segments skipped (too short, or dropped by queue-policy)",
                            failed: "Segments the provider could not transcribe",
                            defaultMaxInFlight: DEFAULT_MAX_IN_FLIGHT, defaultLatencyMs: DEFAULT_LATENCY_MS)

    /// What is the element's own; the chain and the queue are ProviderSettings'.
    public struct OwnSettings: Sendable {
        var prompt = DEFAULT_PROMPT
        var contextPrompt = DEFAULT_CONTEXT_PROMPT
        var temperature = DEFAULT_TEMPERATURE
        var responseFormat = DEFAULT_RESPONSE_FORMAT
        var task = DEFAULT_TASK
        var uploadFormat = DEFAULT_UPLOAD_FORMAT
        var localEngine = DEFAULT_LOCAL_ENGINE
        var localThreads = DEFAULT_LOCAL_THREADS
        var speculate = DEFAULT_SPECULATE
        var partialsEveryMs = DEFAULT_PARTIALS_EVERY_MS
        var keepSpeculatedMs = DEFAULT_KEEP_SPECULATED_MS
        var language = DEFAULT_LANGUAGE
        var minSegmentMs = DEFAULT_MIN_SEGMENT_MS
        var maxSegmentMs = DEFAULT_MAX_SEGMENT_MS
    }
    typealias Settings = ProviderSettings<OwnSettings>

    public let element: ElementHandle
    public let settings = ProviderSettingsStore(Settings(OwnSettings(), defaultProvider: DEFAULT_PROVIDER,
                                                        defaultMaxInFlight: DEFAULT_MAX_IN_FLIGHT))
    let segments = Mutex(SegmentCollector())
    /// The segment whose work began when it opened (partials-every-ms).
    let openSegment = Mutex<OpenSegment?>(nil)
    let transcribers = Mutex<Transcribers?>(nil)
    public let stage: AsyncStage
    public let counters = ResultCounters()
    /// Set once the element closes: the Whisper worker's monitor may report
    /// after that (its shutdown, or later), when the element may be gone.
    let closed = Flag()
    /// The last final transcript, for context-prompt.
    let previousTranscript = Mutex("")
    /// Transcriptions started on likely ends.
    let speculations = Speculations()
    /// Whether upstream is live, asked once a run (at its first likely end).
    let liveUpstream = Mutex<Bool?>(nil)

    public init(element: ElementHandle) {
        self.element = element
        stage = AsyncStage(element: element, log: Self.log, defaultLatencyMs: Self.DEFAULT_LATENCY_MS)
    }

    public func ownProperty(_ name: String, of current: OwnSettings) -> PropertyValue {
        switch name {
        case "prompt": return .string(current.prompt)
        case "context-prompt": return .bool(current.contextPrompt)
        case "temperature": return .double(current.temperature)
        case "response-format": return .enumeration(current.responseFormat.rawValue)
        case "task": return .enumeration(current.task.rawValue)
        case "upload-format": return .enumeration(current.uploadFormat.rawValue)
        case "local-engine": return .enumeration(current.localEngine.rawValue)
        case "local-threads": return .int(current.localThreads)
        case "speculate": return .enumeration(current.speculate.rawValue)
        case "partials-every-ms": return .int(current.partialsEveryMs)
        case "keep-speculated-ms": return .int(current.keepSpeculatedMs)
        case "language": return .string(current.language)
        case "min-segment-ms": return .int(current.minSegmentMs)
        case "max-segment-ms": return .int(current.maxSegmentMs)
        default: Self.unhandledProperty(name)
        }
    }

    public func setOwnProperty(_ name: String, to value: PropertyValue, in settings: inout OwnSettings) {
        switch name {
        case "prompt": settings.prompt = value.string ?? ""
        case "context-prompt": settings.contextPrompt = value.bool
        case "temperature": settings.temperature = value.double
        case "response-format": settings.responseFormat = STTResponseFormat(rawValue: value.int) ?? Self.DEFAULT_RESPONSE_FORMAT
        case "task": settings.task = STTTask(rawValue: value.int) ?? Self.DEFAULT_TASK
        case "upload-format": settings.uploadFormat = UploadFormat(rawValue: value.int) ?? Self.DEFAULT_UPLOAD_FORMAT
        case "local-engine": settings.localEngine = STTProvider.LocalEngine(rawValue: value.int) ?? Self.DEFAULT_LOCAL_ENGINE
        case "local-threads": settings.localThreads = value.int
        case "speculate": settings.speculate = STTSpeculation(rawValue: value.int) ?? Self.DEFAULT_SPECULATE
        case "partials-every-ms": settings.partialsEveryMs = value.int
        case "keep-speculated-ms": settings.keepSpeculatedMs = value.int
        case "language": settings.language = value.string ?? ""
        case "min-segment-ms": settings.minSegmentMs = value.int
        case "max-segment-ms": settings.maxSegmentMs = value.int
        default: Self.unhandledProperty(name)
        }
    }

    /// What is wrong with `language`, or nil: checked at start (a name like
    /// "english" would otherwise fail every segment at the provider), and by
    /// `parley validate` (the property's check).
    @Sendable static func languageProblem(_ value: String) -> String? {
        guard !value.isEmpty, LanguageTag(value) == nil else { return nil }
        return "language '\(value)' is not a BCP-47 language tag: use e.g. en, en-US or pt-BR, or empty to let Whisper detect it"
    }

    public func open() throws(ElementMessageText) {
        let current = settings.withLock { $0 }
        if let problem = Self.languageProblem(current.language) {
            throw .settings(problem, debug: "property language")
        }
        let element = element
        let closed = closed
        closed.set(false)
        let environment = ProcessInfo.processInfo.environment
        let (made, chain) = try ProviderFallback.assemble(
            current.providers, known: STTProvider.values, element: element,
            name: { (_, transcriber: any Transcriber) in transcriber.name }
        ) { position in
            try STTProvider(rawValue: position.provider)!.makeTranscriber(
                position, settings: current, environment: environment, trace: Self.log.providerTrace(for: element)) {
                guard !closed.isSet else { return }
                Self.report($0, to: element)
            }
        }
        transcribers.withLock { $0 = Transcribers(members: made.map(\.member), chain: chain) }
        element.postInfo(.notice("provider \(chain.names.joined(separator: ", then "))"))
    }

    public func start() throws(ElementMessageText) {
        counters.reset()
        previousTranscript.withLock { $0 = "" }
        segments.withLock { $0 = SegmentCollector() }
        speculations.cancelAll()
        abandonOpenSegment()
        liveUpstream.withLock { $0 = nil }
    }

    public func stop() {
        speculations.cancelAll()
        abandonOpenSegment()
    }

    func abandonOpenSegment() { takeOpenSegment()?.abandon() }

    /// The segment whose work began when it opened (partials), no longer
    /// kept here: any, or only if it is segment `id`.
    func takeOpenSegment(_ id: UInt64? = nil) -> OpenSegment? {
        openSegment.withLock { open in
            guard let current = open, id == nil || current.id == id else { return nil }
            open = nil
            return current
        }
    }

    public func close() {
        closed.set()
        let made = transcribers.withLock { made in
            defer { made = nil }
            return made?.members ?? []
        }
        for transcriber in made { transcriber.shutdown() }
    }

    /// The Whisper worker's life, on the bus: its death is a warning (the
    /// segment it held fails on its own), its load time is worth knowing.
    static func report(_ event: WhisperWorker.Event, to element: ElementHandle) {
        switch event {
        case .started(let pid):
            log.info("Whisper worker started (pid \(pid))")
        case .ready(let pid, let seconds):
            element.postInfo(.notice("Whisper-base loaded in \(String(format: "%.1f", seconds)) s (worker pid \(pid))"))
        case .died(let pid, let reason, let restarting):
            element.postWarning(ElementMessageText(
                "the Whisper worker (pid \(pid)) died: \(reason)" + (restarting ? "; restarting it" : "")))
        }
    }

    public func accept(_ buffer: Buffer) -> [StageWork] {
        let maxSegmentMs = settings.withLock { $0.maxSegmentMs }
        let samples = buffer.int16Samples
        let (ready, heard) = segments.withLock { ($0.append(samples, pts: buffer.pts, maxSegmentMs: maxSegmentMs), $0.openCount) }
        if let heard, let open = openSegment.withLock({ $0 }), open.id == heard.id { open.heard(heard.count) }
        return ready.map { [work(for: $0)] } ?? []
    }

    public func sinkEvent(_ event: Event) -> [StageWork] {
        switch event.view {
        case .caps(let caps):
            if let format = AudioFormat(caps: caps) { segments.withLock { $0.rate = format.rate } }
            return []
        case .flushStop:
            segments.withLock { $0 = SegmentCollector(rate: $0.rate) }
            speculations.cancelAll()
            abandonOpenSegment()
            return []
        case .eos:
            if let open = segments.withLock({ $0.finish() }) { return completed(open).map { [$0] } ?? [] }
            // A segment opened with partials that heard nothing: its work ends too (skipped: too short).
            if let open = takeOpenSegment() {
                open.end(SpeechSegment(id: open.id, start: open.start, rate: open.rate), speculation: speculations.take(open.id))
            }
            return []
        default:
            guard let boundary = SpeechBoundary(event) else { return [] }
            var works = segments.withLock { $0.boundary(boundary) }.compactMap { step -> StageWork? in
                switch step {
                case .completed(let segment): return completed(segment)
                case .likelyEnd(let heard): speculate(on: heard); return nil
                case .resumed(let id):
                    let (keepMs, rate) = (settings.withLock { $0.keepSpeculatedMs }, segments.withLock { $0.rate })
                    speculations.withdraw(id, keepAtLeast: keepMs * rate / 1000)
                    return nil
                }
            }
            if case .start(let id, let start) = boundary, givesPartials(settings.withLock { $0 }) {
                let open = OpenSegment(id: id, start: start, rate: segments.withLock { $0.rate })
                openSegment.withLock { $0 = open }
                works.append(openedWork(open))
            }
            return works
        }
    }

    /// A segment that ended: work to transcribe it, or nothing when its
    /// work began at its start (partials), which now has its end.
    func completed(_ segment: SpeechSegment) -> StageWork? {
        guard let open = takeOpenSegment(segment.id) else { return work(for: segment) }
        open.end(segment, speculation: speculations.take(segment.id))
        return nil
    }
}

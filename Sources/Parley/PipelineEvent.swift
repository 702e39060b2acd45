import GstKit
import ParleyCore
import ParleySpeech

/// What a running pipeline tells the application, typed.
public enum PipelineEvent: Sendable {
    /// The VAD opened or closed a segment (`parley/vad`, `parley/speech-*`).
    case segment(SegmentEvent)
    /// A transcript (`parley/transcript`).
    case transcript(TextResult)
    /// A translation, partial or final (`parley/translation`).
    case translation(TextResult)
    /// Per-segment, per-stage latency figures (`parley/latency`).
    case latency(LatencyReport)
    /// A provider chain went past a provider for a segment (`parley/fallback`).
    case fallback(FallbackEvent)
    /// What an element says of itself, e.g. which provider it uses.
    case info(source: String, message: String)
    /// An element's warning or error: `source` is the element's name,
    /// `message` its sentence for users; one about the data itself (no type
    /// found, not decodable) ends with the file it came from, `(reading
    /// "talk.flac")`, when one file source feeds that element.
    case warning(source: String, message: String, debug: String?)
    case error(source: String, message: String, debug: String?)
    /// Any other element message.
    case elementMessage(source: String, Structure)
    case stateChanged(from: String, to: String)
    case eos
}

public struct SegmentEvent: Sendable, Equatable {
    public var segmentID: UInt64
    public var start: UInt64
    public var end: UInt64?
    /// Where the speech itself ended (before the closing silence), ns; nil when the segment opened.
    public var speechEnd: UInt64?
    public var reason: String?
    public var source: String

    init(_ message: VADSegmentMessage, source: String) {
        segmentID = message.segmentID
        start = message.start
        end = message.end
        speechEnd = message.speechEnd
        reason = message.reason.rawValue
        self.source = source
    }

    /// A speech-start or speech-end posted as a message (by an application's own element).
    init?(_ boundary: SpeechBoundary, source: String) {
        switch boundary {
        case .start(let id, let pts):
            (segmentID, start, end, speechEnd, reason) = (id, pts, nil, nil, nil)
        case .end(let id, let start, let end, let speechEnd, let reason, _):
            (segmentID, self.start, self.end, self.speechEnd, self.reason) = (id, start, end, speechEnd, reason.rawValue)
        case .likelyEnd, .resumed:
            return nil
        }
        self.source = source
    }
}

public struct TextResult: Sendable, Equatable {
    public var segmentID: UInt64
    public var text: String
    public var status: SpeechStatus
    public var language: String
    /// Who served it ("openai (api.openai.com)", "local (apertium eng-spa)", "cache"); empty when none did.
    public var provider: String
    public var source: String
    /// A translation joined from several segments' texts (streamtranslator
    /// `max-hold-ms`): the first of them; nil for a segment's own result.
    public var firstSegmentID: UInt64?
    /// A local partial transcript's leading words that two consecutive
    /// passes agreed on (cloudstt `partials-every-ms`); nil otherwise.
    public var stable: String?

    init(_ transcript: TranscriptMessage, source: String) {
        segmentID = transcript.segmentID
        text = transcript.text
        status = transcript.status
        language = transcript.language
        provider = transcript.provider
        self.source = source
        stable = transcript.stable
    }

    init(_ translation: TranslationMessage, source: String) {
        segmentID = translation.segmentID
        text = translation.text
        status = translation.status
        language = translation.language
        provider = translation.provider
        self.source = source
        firstSegmentID = translation.firstSegmentID
    }
}

/// A provider chain passed over `from` for a segment, and asked `to` next
/// ("" when none was left), because of `reason`.
public struct FallbackEvent: Sendable, Equatable {
    public var segmentID: UInt64
    public var from: String
    public var to: String
    public var reason: String
    public var source: String

    init(_ message: FallbackMessage, source: String) {
        segmentID = message.segmentID
        from = message.from
        to = message.to
        reason = message.reason
        self.source = source
    }
}

/// Latency of one segment at one stage, in milliseconds from the
/// monotonic stamps in `ParleySpeechMeta`.
public struct LatencyReport: Sendable, Equatable {
    public var segmentID: UInt64
    public var stage: String
    public var source: String
    /// Named figures, e.g. "ttfs-ms", "queue-wait-ms".
    public var figures: [String: Double]
    /// cloudstt: transcriptions started at the segment's likely ends (its
    /// `speculate`), withdrawn ones included; nil when none was.
    public var speculativeRequests: Int?
    /// cloudstt: whether the final is the transcription started at the last likely end.
    public var speculationUsed: Bool?

    init?(_ structure: Structure, source: String) {
        guard let message = LatencyMessage(structure, source: source) else { return nil }
        segmentID = message.segmentID
        stage = message.stage
        self.source = source
        figures = Dictionary(message.figures.map { ($0.name, $0.milliseconds) }, uniquingKeysWith: { _, last in last })
        speculativeRequests = message.speculativeRequests
        speculationUsed = message.speculationUsed
    }
}

extension PipelineEvent {
    /// Types a `parley/...` element message; other messages stay generic.
    static func fromElementMessage(_ structure: Structure, source: String) -> PipelineEvent {
        switch structure.name {
        case VADSegmentMessage.name:
            if let message = VADSegmentMessage(structure) { return .segment(SegmentEvent(message, source: source)) }
        case SpeechBoundary.startName, SpeechBoundary.endName:
            if let boundary = SpeechBoundary(structure), let event = SegmentEvent(boundary, source: source) { return .segment(event) }
        case TranscriptMessage.name:
            if let message = TranscriptMessage(structure) { return .transcript(TextResult(message, source: source)) }
        case TranslationMessage.name:
            if let message = TranslationMessage(structure) { return .translation(TextResult(message, source: source)) }
        case LatencyMessage.name:
            if let report = LatencyReport(structure, source: source) { return .latency(report) }
        case FallbackMessage.name:
            if let message = FallbackMessage(structure) { return .fallback(FallbackEvent(message, source: source)) }
        default:
            break
        }
        return .elementMessage(source: source, structure)
    }
}

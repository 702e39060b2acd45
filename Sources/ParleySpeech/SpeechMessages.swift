import GstKit
import ParleyCore

// The messages and custom events the speech elements produce, one type
// each (GstKit.StructureContract): built by the element that posts it, read
// by sessionrecorder and the embedding API's PipelineEvent, documented from
// its `doc`. The field docs live here and nowhere else.

/// `parley/transcript` (cloudstt): one per result, partial or final.
public struct TranscriptMessage: StructureContract, Equatable {
    public var segmentID: UInt64
    public var text: String
    public var status: SpeechStatus
    public var language: String
    public var start: UInt64
    public var duration: UInt64
    public var provider: String
    /// A local partial's leading words that two passes agreed on (cloudstt partials-every-ms).
    public var stable: String?

    public init(segmentID: UInt64, text: String, status: SpeechStatus, language: String, start: UInt64, duration: UInt64,
                provider: String, stable: String? = nil) {
        self.segmentID = segmentID
        self.text = text
        self.status = status
        self.language = language
        self.start = start
        self.duration = duration
        self.provider = provider
        self.stable = stable
    }

    public static let doc = StructureDoc(.message, "parley/transcript", when: "per result: each partial, then the final (or failed, skipped)", fields: [
        SpeechDocs.segmentID,
        .init("text", .string, "The transcript (empty for a failed or skipped result)"),
        .init("status", .string, "partial, final, failed or skipped"),
        .init("language", .string, "BCP-47 tag of the speech: the language property, or what Whisper detected"),
        .init("start", .uint64, "Stream time of the segment's first sample (ns)"),
        .init("duration", .uint64, "The segment's length (ns)"),
        .init("provider", .string, "Who served it; empty for partials and unserved results"),
        .init("stable", .string, "The leading words of text that two consecutive passes agreed on (LocalAgreement): a caption may show them as settled and the rest as tentative; the final may still differ",
              onlyWhen: "a partial of the local engine (cloudstt partials-every-ms)"),
    ])

    public var structure: Structure {
        Structure(Self.name, [
            ("segment-id", .uint64(segmentID)), ("text", .string(text)), ("status", .string(status.description)),
            ("language", .string(language)), ("start", .uint64(start)), ("duration", .uint64(duration)),
            ("provider", .string(provider)),
        ] + (stable.map { [("stable", .string($0))] } ?? []))
    }

    public init?(_ structure: Structure) {
        guard structure.name == Self.name, let fields = SegmentFields(structure) else { return nil }
        self.init(segmentID: fields.id, text: fields.text("text"), status: fields.status, language: fields.text("language"),
                  start: fields.time("start"), duration: fields.time("duration"), provider: fields.text("provider"),
                  stable: structure["stable"]?.string)
    }
}

/// `parley/translation` (streamtranslator): one per final translation, and per failed or skipped result.
public struct TranslationMessage: StructureContract, Equatable {
    public var segmentID: UInt64
    public var text: String
    public var status: SpeechStatus
    public var language: String
    public var sourceLanguage: String
    public var sourceText: String
    public var provider: String
    public var start: UInt64
    public var duration: UInt64
    /// The first segment of a joined text (sentence assembly); nil for a segment's own.
    public var firstSegmentID: UInt64?

    public init(segmentID: UInt64, text: String, status: SpeechStatus, language: String, sourceLanguage: String,
                sourceText: String, provider: String, start: UInt64, duration: UInt64, firstSegmentID: UInt64? = nil) {
        self.firstSegmentID = firstSegmentID
        self.segmentID = segmentID
        self.text = text
        self.status = status
        self.language = language
        self.sourceLanguage = sourceLanguage
        self.sourceText = sourceText
        self.provider = provider
        self.start = start
        self.duration = duration
    }

    public static let doc = StructureDoc(.message, "parley/translation", when: "per final translation, and per failed or skipped result", fields: [
        SpeechDocs.segmentID,
        .init("text", .string, "The translation (or the answer, in assistant mode)"),
        .init("status", .string, "final, failed or skipped"),
        .init("language", .string, "BCP-47 tag of the translation (target-language)"),
        .init("source-language", .string, "BCP-47 tag of the text translated"),
        .init("source-text", .string, "The text translated"),
        .init("provider", .string, "Who served it; cache for a cache hit; none (same language) for text already in the target language, passed on as it is"),
        .init("start", .uint64, "Stream time of the segment (ns)"),
        .init("duration", .uint64, "The segment's length (ns)"),
        .init("first-segment-id", .uint64, "The first segment of a text joined from several (max-hold-ms): start and duration span them all",
              onlyWhen: "the text was joined from several segments"),
    ])

    public var structure: Structure {
        var fields: [(String, PropertyValue)] = [
            ("segment-id", .uint64(segmentID)), ("text", .string(text)), ("status", .string(status.description)),
            ("language", .string(language)), ("source-language", .string(sourceLanguage)),
            ("source-text", .string(sourceText)), ("provider", .string(provider)),
            ("start", .uint64(start)), ("duration", .uint64(duration)),
        ]
        if let firstSegmentID { fields.append(("first-segment-id", .uint64(firstSegmentID))) }
        return Structure(Self.name, fields)
    }

    public init?(_ structure: Structure) {
        guard structure.name == Self.name, let fields = SegmentFields(structure) else { return nil }
        self.init(segmentID: fields.id, text: fields.text("text"), status: fields.status, language: fields.text("language"),
                  sourceLanguage: fields.text("source-language"), sourceText: fields.text("source-text"),
                  provider: fields.text("provider"), start: fields.time("start"), duration: fields.time("duration"))
        if case .uint64(let first)? = structure["first-segment-id"] { firstSegmentID = first }
    }
}

/// `parley/fallback` (every element with a provider chain): one per provider a segment went past.
public struct FallbackMessage: StructureContract, Equatable {
    public var segmentID: UInt64
    /// The provider passed over.
    public var from: String
    /// The next one asked; "" when none was left.
    public var to: String
    /// Its error, or why it was skipped (circuit open, key rejected).
    public var reason: String

    public init(segmentID: UInt64, from: String, to: String, reason: String) {
        self.segmentID = segmentID
        self.from = from
        self.to = to
        self.reason = reason
    }

    public init(segmentID: UInt64, _ move: FallbackChain.Move) {
        self.init(segmentID: segmentID, from: move.from, to: move.to, reason: move.reason)
    }

    public static let doc = StructureDoc(.message, "parley/fallback", when: "per provider a segment went past in the chain", fields: [
        SpeechDocs.segmentID,
        .init("from", .string, "The provider passed over"),
        .init("to", .string, "The next one asked; empty when none was left"),
        .init("reason", .string, "Its error, or why it was skipped (circuit open, key rejected)"),
    ])

    public var structure: Structure {
        Structure(Self.name, [("segment-id", .uint64(segmentID)), ("from", .string(from)), ("to", .string(to)),
                              ("reason", .string(reason))])
    }

    public init?(_ structure: Structure) {
        guard structure.name == Self.name, let fields = SegmentFields(structure, statusRequired: false) else { return nil }
        self.init(segmentID: fields.id, from: fields.text("from"), to: fields.text("to"), reason: fields.text("reason"))
    }
}

/// `parley/tts` (cloudtts): one per result, once spoken (or not).
public struct SpokenMessage: StructureContract, Equatable {
    public var segmentID: UInt64
    public var status: SpeechStatus
    public var provider: String
    public var audioSeconds: Double
    /// How much faster than `speed` it was spoken to catch up (overlap=compress); 1 otherwise.
    public var speedUp: Double

    public init(segmentID: UInt64, status: SpeechStatus, provider: String, audioSeconds: Double, speedUp: Double = 1) {
        self.segmentID = segmentID
        self.status = status
        self.provider = provider
        self.audioSeconds = audioSeconds
        self.speedUp = speedUp
    }

    public static let doc = StructureDoc(.message, "parley/tts", when: "per result, once spoken (or failed)", fields: [
        SpeechDocs.segmentID,
        .init("status", .string, "final, or failed when it was not spoken"),
        .init("provider", .string, "Who spoke it"),
        .init("audio-seconds", .double, "How much audio it made"),
        .init("speed-up", .double, "How much faster than the speed property it was spoken to catch up with its speaker (overlap=compress); 1 otherwise"),
    ])

    public var structure: Structure {
        Structure(Self.name, [("segment-id", .uint64(segmentID)), ("status", .string(status.description)),
                              ("provider", .string(provider)), ("audio-seconds", .double(audioSeconds)),
                              ("speed-up", .double(speedUp))])
    }

    public init?(_ structure: Structure) {
        guard structure.name == Self.name, let fields = SegmentFields(structure) else { return nil }
        self.init(segmentID: fields.id, status: fields.status, provider: fields.text("provider"),
                  audioSeconds: structure["audio-seconds"]?.double ?? 0, speedUp: structure["speed-up"]?.double ?? 1)
    }
}

/// `parley/tts-start` (cloudtts): serialized, before a result's first audio buffer.
public struct SpeechOutputStart: StructureContract, Equatable {
    public var segmentID: UInt64
    /// Stream time of the result's first sample (ns).
    public var start: UInt64

    public init(segmentID: UInt64, start: UInt64) {
        self.segmentID = segmentID
        self.start = start
    }

    public static let doc = StructureDoc(.downstreamEvent, "parley/tts-start",
                                         when: "before a result's first audio buffer (serialized)", fields: [
        SpeechDocs.segmentID,
        .init("start", .uint64, "Stream time of the result's first sample (ns)"),
    ])

    public var structure: Structure {
        Structure(Self.name, [("segment-id", .uint64(segmentID)), ("start", .uint64(start))])
    }

    public init?(_ structure: Structure) {
        guard structure.name == Self.name, let fields = SegmentFields(structure, statusRequired: false) else { return nil }
        self.init(segmentID: fields.id, start: fields.time("start"))
    }
}

/// `parley/tts-end` (cloudtts): serialized, after a result's last audio
/// buffer, or in place of audio that failed (then with why).
public struct SpeechOutputEnd: StructureContract, Equatable {
    public var segmentID: UInt64
    /// Stream time where the result's audio ends (ns).
    public var end: UInt64
    /// Why the result was not spoken; nil when it was.
    public var failure: String?

    public init(segmentID: UInt64, end: UInt64, failure: String? = nil) {
        self.segmentID = segmentID
        self.end = end
        self.failure = failure
    }

    public static let doc = StructureDoc(.downstreamEvent, "parley/tts-end",
                                         when: "after a result's last audio buffer, or in place of audio that failed", fields: [
        SpeechDocs.segmentID,
        .init("end", .uint64, "Stream time where the result's audio ends (ns)"),
        .init("status", .string, "failed", onlyWhen: "the result was not spoken"),
        .init("reason", .string, "Why it was not spoken", onlyWhen: "the result was not spoken"),
    ])

    public var structure: Structure {
        var fields: [(String, PropertyValue)] = [("segment-id", .uint64(segmentID)), ("end", .uint64(end))]
        if let failure { fields += [("status", .string("failed")), ("reason", .string(failure))] }
        return Structure(Self.name, fields)
    }

    public init?(_ structure: Structure) {
        guard structure.name == Self.name, let fields = SegmentFields(structure, statusRequired: false) else { return nil }
        let failed = structure["status"]?.string == "failed"
        self.init(segmentID: fields.id, end: fields.time("end"),
                  failure: failed ? (structure["reason"]?.string ?? "not spoken") : nil)
    }
}

/// Reading the fields the speech contracts share: `segment-id` (required),
/// `status` (required where the contract has one), texts and times.
struct SegmentFields {
    let structure: Structure
    let id: UInt64
    let status: SpeechStatus

    init?(_ structure: Structure, statusRequired: Bool = true) {
        guard case .uint64(let id)? = structure["segment-id"] else { return nil }
        let status = structure["status"]?.string.flatMap { SpeechStatus(name: $0) }
        guard status != nil || !statusRequired else { return nil }
        self.structure = structure
        self.id = id
        self.status = status ?? .final
    }

    func text(_ name: String) -> String { structure[name]?.string ?? "" }
    func time(_ name: String) -> UInt64 { structure[name]?.uint64 ?? 0 }
}

/// `parley/latency`: one stage's figures for one segment, all in ms, posted
/// by every stage (vad, stt, translate, tts) and read by `parley run
/// --latency`, the embedding API's `LatencyReport` and `parley bench`. Each
/// stage documents its own figures (`SpeechDocs.latency`); this is the one
/// place the message is built and read.
public struct LatencyMessage: Sendable, Equatable {
    public static let name = "parley/latency"

    public struct Figure: Sendable, Equatable {
        /// Ends in `-ms`: "ttfs-ms", "queue-wait-ms".
        public var name: String
        public var milliseconds: Double
        public init(_ name: String, _ milliseconds: Double) {
            self.name = name
            self.milliseconds = milliseconds
        }
    }

    public var segmentID: UInt64
    public var stage: String
    /// In the order they are posted.
    public var figures: [Figure]
    /// cloudstt: transcriptions started at the segment's likely ends (`speculate`), withdrawn ones included.
    public var speculativeRequests: Int?
    /// cloudstt: whether the final is the last of them.
    public var speculationUsed: Bool?

    public init(segmentID: UInt64, stage: String, figures: [Figure] = []) {
        self.segmentID = segmentID
        self.stage = stage
        self.figures = figures
    }

    /// A figure by name; setting one already there replaces it, a new one goes last.
    public subscript(figure name: String) -> Double? {
        get { figures.first { $0.name == name }?.milliseconds }
        set {
            if let index = figures.firstIndex(where: { $0.name == name }) {
                if let newValue { figures[index].milliseconds = newValue } else { figures.remove(at: index) }
            } else if let newValue {
                figures.append(Figure(name, newValue))
            }
        }
    }

    public var structure: Structure {
        var fields: [(String, PropertyValue)] = [("segment-id", .uint64(segmentID)), ("stage", .string(stage))]
        fields += figures.map { ($0.name, .double($0.milliseconds)) }
        if let speculativeRequests { fields.append(("speculative-requests", .int(speculativeRequests))) }
        if let speculationUsed { fields.append(("speculation-used", .bool(speculationUsed))) }
        return Structure(Self.name, fields)
    }

    /// nil for another message; a stage that does not say which is `source`'s.
    public init?(_ structure: Structure, source: String = "") {
        guard structure.name == Self.name, case .uint64(let id)? = structure["segment-id"] else { return nil }
        segmentID = id
        if case .string(let stage?)? = structure["stage"] { self.stage = stage } else { stage = source }
        figures = structure.fields.compactMap { field in
            guard field.name.hasSuffix("-ms"), case .double(let value) = field.value else { return nil }
            return Figure(field.name, value)
        }
        if case .int(let count)? = structure["speculative-requests"] { speculativeRequests = count }
        if case .bool(let used)? = structure["speculation-used"] { speculationUsed = used }
    }
}

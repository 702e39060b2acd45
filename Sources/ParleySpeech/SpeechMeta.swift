// ParleySpeechMeta travels as GStreamer's custom meta (GstKit.CustomMeta):
// a structure of typed fields, readable from C and Python with
// gst_buffer_get_custom_meta(buffer, "ParleySpeechMeta").
import GstKit
import ParleyCore

/// `ParleySpeechMeta` as a Swift value: which segment a buffer belongs to,
/// what it is (partial, final, failed, skipped), its language and the
/// latency stamps stages have put on it.
public struct SpeechMeta: Sendable, Equatable {
    public var segmentID: UInt64
    public var status: SpeechStatus
    /// 0 for a result's first attempt. When a stream breaks and is retried,
    /// an empty partial with a higher revision withdraws what the broken
    /// attempt showed, and the new attempt's partials carry that revision.
    public var revision: UInt32 = 0
    /// BCP-47, empty when unknown.
    public var language: String
    /// Speech end in the audio's own time (ns), or `Gst.clockTimeNone`.
    public var speechEndAudioTime: UInt64
    /// CLOCK_MONOTONIC nanoseconds, 0 where the stage has not stamped.
    public var stamps: [LatencyStamp: UInt64]
    /// Who served the stage that made this buffer ("local (apertium eng-spa)"); empty when unknown.
    /// At most 63 bytes travel.
    public var provider = ""
    /// Why a failed or skipped result is not final (the element's warning); empty otherwise.
    /// At most 191 bytes travel.
    public var detail = ""
    /// Transcriptions cloudstt started for the segment at its likely ends
    /// (`speculate`), withdrawn ones included; 0 when none was.
    public var speculativeRequests: UInt32 = 0
    /// Whether the transcript is the last of those, begun before the silence
    /// confirmed the end.
    public var speculationUsed = false
    /// How much of the segment's start (ms) the transcript took from text
    /// kept from withdrawn speculations (cloudstt keep-speculated-ms)
    /// instead of transcribing it again; 0 when none was kept.
    public var speculationKeptMs: UInt32 = 0
    /// The first segment of a text joined from several (streamtranslator's
    /// sentence assembly, `max-hold-ms`): this result stands for segments
    /// `firstSegmentID...segmentID`. nil for a result of its own segment.
    public var firstSegmentID: UInt64?

    public init(segmentID: UInt64, status: SpeechStatus = .final, language: String = "",
                speechEndAudioTime: UInt64 = Gst.clockTimeNone, stamps: [LatencyStamp: UInt64] = [:]) {
        self.segmentID = segmentID
        self.status = status
        self.language = language
        self.speechEndAudioTime = speechEndAudioTime
        self.stamps = stamps
    }

    /// Stamps `stage` with the monotonic clock now, unless it is stamped already.
    public mutating func stamp(_ stage: LatencyStamp, at time: UInt64 = MonotonicClock.nanoseconds()) {
        if stamps[stage] == nil { stamps[stage] = time }
    }
}

extension SpeechMeta: CustomMeta {
    public static let metaName = "ParleySpeechMeta"

    /// How many bytes of each text travel: provider and detail come from
    /// providers and are bounded like everything they send.
    static let textLimits = (language: 35, provider: 63, detail: 191)

    public var metaFields: Structure {
        var fields: [(String, PropertyValue)] = [
            ("segment-id", .uint64(segmentID)), ("status", .string(status.description)), ("revision", .uint64(UInt64(revision))),
            ("language", .string(Self.cut(language, to: Self.textLimits.language))),
            ("provider", .string(Self.cut(provider, to: Self.textLimits.provider))),
            ("detail", .string(Self.cut(detail, to: Self.textLimits.detail))),
        ]
        if speechEndAudioTime != Gst.clockTimeNone { fields.append(("speech-end", .uint64(speechEndAudioTime))) }
        if let firstSegmentID { fields.append(("first-segment-id", .uint64(firstSegmentID))) }
        if speculativeRequests > 0 {
            fields.append(("speculative-requests", .uint64(UInt64(speculativeRequests))))
            fields.append(("speculation-used", .bool(speculationUsed)))
        }
        if speculationKeptMs > 0 { fields.append(("speculation-kept-ms", .uint64(UInt64(speculationKeptMs)))) }
        for stage in LatencyStamp.allCases {
            if let time = stamps[stage] { fields.append((Self.stampField(stage), .uint64(time))) }
        }
        return Structure(Self.metaName, fields)
    }

    public init?(metaFields fields: Structure) {
        guard case .uint64(let segmentID)? = fields["segment-id"],
              case .string(let statusName?)? = fields["status"], let status = SpeechStatus(name: statusName) else { return nil }
        func text(_ name: String) -> String {
            if case .string(let value?)? = fields[name] { return value }
            return ""
        }
        func time(_ name: String) -> UInt64? {
            if case .uint64(let value)? = fields[name] { return value }
            return nil
        }
        var stamps: [LatencyStamp: UInt64] = [:]
        for stage in LatencyStamp.allCases { stamps[stage] = time(Self.stampField(stage)) }
        self.init(segmentID: segmentID, status: status, language: text("language"),
                  speechEndAudioTime: time("speech-end") ?? Gst.clockTimeNone, stamps: stamps)
        revision = UInt32(clamping: time("revision") ?? 0)
        provider = text("provider")
        detail = text("detail")
        firstSegmentID = time("first-segment-id")
        speculativeRequests = UInt32(clamping: time("speculative-requests") ?? 0)
        if case .bool(let used)? = fields["speculation-used"] { speculationUsed = used }
        speculationKeptMs = UInt32(clamping: time("speculation-kept-ms") ?? 0)
    }

    /// The field of a latency stamp: `stamp-` and the stamp's name (`stamp-first-byte`).
    static func stampField(_ stage: LatencyStamp) -> String { "stamp-\(stage)" }

    /// At most `limit` bytes of `text`, cut at a character boundary.
    static func cut(_ text: String, to limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var bytes = Array(text.utf8.prefix(limit))
        while !bytes.isEmpty && String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Buffer {
    /// The speech meta on this buffer, if any.
    public var speechMeta: SpeechMeta? { customMeta(SpeechMeta.self) }

    /// Adds or replaces the speech meta (the buffer must be writable).
    public func setSpeechMeta(_ value: SpeechMeta) { setCustomMeta(value) }
}

extension SpeechMeta {
    /// The `parley/latency` message of a text-to-speech stage once its first
    /// audio left: time to first audio from when the text arrived, and voice
    /// to voice from when the VAD decided the speech had ended.
    public func ttsLatencyMessage(textArrivedAt: UInt64) -> Structure {
        let firstAudio = stamps[.firstAudioOut] ?? MonotonicClock.nanoseconds()
        var latency = LatencyMessage(segmentID: segmentID, stage: "tts",
                                     figures: [.init("time-to-first-audio-ms", Double(firstAudio - textArrivedAt) / 1e6)])
        if let speechEnd = stamps[.speechEnd], firstAudio > speechEnd {
            latency[figure: "voice-to-voice-ms"] = Double(firstAudio - speechEnd) / 1e6
        }
        return latency.structure
    }
}

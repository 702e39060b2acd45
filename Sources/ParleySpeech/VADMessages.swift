import GstKit
import ParleyCore

// vadsegmenter's two bus messages, one type each (see SpeechMessages.swift).

/// `parley/vad` (vadsegmenter): once per segment, when the VAD ends it.
public struct VADSegmentMessage: StructureContract, Equatable {
    public var segmentID: UInt64
    /// Stream time of the segment's first sample, prefix padding included (ns).
    public var start: UInt64
    /// Stream time where the segment was cut (ns).
    public var end: UInt64
    /// Stream time where its last speech frame ended (ns).
    public var speechEnd: UInt64
    public var reason: SegmentEndReason
    /// Mean speech probability of its frames, 0 to 1.
    public var meanProbability: Double

    public init(segmentID: UInt64, start: UInt64, end: UInt64, speechEnd: UInt64, reason: SegmentEndReason, meanProbability: Double) {
        self.segmentID = segmentID
        self.start = start
        self.end = end
        self.speechEnd = speechEnd
        self.reason = reason
        self.meanProbability = meanProbability
    }

    public static let doc = StructureDoc(.message, "parley/vad", when: "once per segment, when the VAD ends it", fields: [
        SpeechDocs.segmentID,
        .init("start", .uint64, "Stream time of the segment's first sample, prefix padding included (ns)"),
        .init("end", .uint64, "Stream time where the segment was cut (ns); by silence, silence-duration-ms after speech-end less the detector's lookahead, which was heard by then and counts towards the silence (sooner when frames it doubted came before speech-end: they count in part; the vad stage's eos-detection-ms in parley/latency says how long it waited)"),
        .init("speech-end", .uint64, "Stream time where its last speech frame ended (ns)"),
        .init("reason", .string, "Why it ended: \(SegmentEndReason.allCases.map(\.rawValue).joined(separator: ", "))"),
        .init("mean-probability", .double, "Mean speech probability of its frames, 0 to 1"),
    ])

    public var structure: Structure {
        Structure(Self.name, [
            ("segment-id", .uint64(segmentID)), ("start", .uint64(start)), ("end", .uint64(end)),
            ("speech-end", .uint64(speechEnd)), ("reason", .string(reason.rawValue)),
            ("mean-probability", .double(meanProbability)),
        ])
    }

    public init?(_ structure: Structure) {
        guard structure.name == Self.name, let fields = SegmentFields(structure, statusRequired: false),
              let reason = SegmentEndReason(rawValue: fields.text("reason")) else { return nil }
        self.init(segmentID: fields.id, start: fields.time("start"), end: fields.time("end"),
                  speechEnd: fields.time("speech-end"), reason: reason,
                  meanProbability: structure["mean-probability"]?.double ?? 0)
    }
}

/// `parley/vad-level` (vadsegmenter `level-interval-ms`): the speech
/// probability and input level of one interval, for a UI's meter.
public struct VADLevelMessage: StructureContract, Equatable {
    /// Stream time of the interval's first sample, and its length (ns).
    public var start: UInt64
    public var duration: UInt64
    /// The highest speech probability of the interval's frames, 0 to 1.
    public var probability: Double
    /// RMS and peak level in dBFS (-100 for digital silence).
    public var levelDB: Double
    public var peakDB: Double
    /// Whether a segment was open at the interval's end.
    public var speaking: Bool

    public init(start: UInt64, duration: UInt64, probability: Double, levelDB: Double, peakDB: Double, speaking: Bool) {
        self.start = start
        self.duration = duration
        self.probability = probability
        self.levelDB = levelDB
        self.peakDB = peakDB
        self.speaking = speaking
    }

    public static let doc = StructureDoc(.message, "parley/vad-level", when: "every level-interval-ms of audio, when that property is above 0", fields: [
        .init("start", .uint64, "Stream time of the interval's first sample (ns); in vad mode posted once the detector's lookahead after the interval has arrived (in ptt and always at once, with the detector's latest probability)"),
        .init("duration", .uint64, "Length of the interval (ns), a whole number of 10 ms frames"),
        .init("probability", .double, "Highest speech probability of the interval's frames, 0 to 1"),
        .init("level-db", .double, "RMS level of the interval in dBFS (-100 for digital silence)"),
        .init("peak-db", .double, "Peak sample level of the interval in dBFS (-100 for digital silence)"),
        .init("speaking", .boolean, "Whether a segment was open at the interval's end"),
    ])

    public var structure: Structure {
        Structure(Self.name, [
            ("start", .uint64(start)), ("duration", .uint64(duration)), ("probability", .double(probability)),
            ("level-db", .double(levelDB)), ("peak-db", .double(peakDB)), ("speaking", .bool(speaking)),
        ])
    }

    public init?(_ structure: Structure) {
        guard structure.name == Self.name, case .uint64(let start)? = structure["start"],
              case .uint64(let duration)? = structure["duration"] else { return nil }
        self.init(start: start, duration: duration, probability: structure["probability"]?.double ?? 0,
                  levelDB: structure["level-db"]?.double ?? -100, peakDB: structure["peak-db"]?.double ?? -100,
                  speaking: structure["speaking"]?.bool ?? false)
    }
}

import GstKit
import ParleyCore

/// The `parley/speech-start` and `parley/speech-end` events that bracket
/// each utterance downstream of the VAD, and between them the two steps of
/// an early end: `parley/speech-likely-end` (likely-end-ms of silence: the
/// segment is probably over, and its audio so far has been passed on) and
/// `parley/speech-resumed` (the speaker went on: that likely end is
/// withdrawn). Serialized: they travel in order with the audio between them.
/// Work started on a likely end is never emitted before the speech-end
/// that confirms it.
public enum SpeechBoundary: Sendable, Equatable {
    case start(segmentID: UInt64, pts: UInt64)
    /// `position`: the stream time up to which the segment's audio has been
    /// passed on; `speechEnd`: where its last speech frame ended.
    case likelyEnd(segmentID: UInt64, position: UInt64, speechEnd: UInt64, decidedAt: UInt64)
    /// `at`: the stream time of the speech that withdrew the likely end.
    case resumed(segmentID: UInt64, at: UInt64)
    /// `speechEnd` is the end of the last speech frame, in the audio's time;
    /// `decidedAt` is the monotonic time the VAD decided the segment was over.
    case end(segmentID: UInt64, start: UInt64, end: UInt64, speechEnd: UInt64,
             reason: SegmentEndReason, decidedAt: UInt64)

    public static let startName = "parley/speech-start"
    public static let endName = "parley/speech-end"
    public static let likelyEndName = "parley/speech-likely-end"
    public static let resumedName = "parley/speech-resumed"

    public var segmentID: UInt64 {
        switch self {
        case .start(let id, _), .end(let id, _, _, _, _, _), .likelyEnd(let id, _, _, _), .resumed(let id, _): id
        }
    }

    public var structure: Structure {
        switch self {
        case .start(let id, let pts):
            Structure(Self.startName, [("segment-id", .uint64(id)), ("start", .uint64(pts))])
        case .end(let id, let start, let end, let speechEnd, let reason, let decidedAt):
            Structure(Self.endName, [
                ("segment-id", .uint64(id)), ("start", .uint64(start)), ("end", .uint64(end)),
                ("speech-end", .uint64(speechEnd)), ("reason", .string(reason.rawValue)),
                ("decided-at", .uint64(decidedAt)),
            ])
        case .likelyEnd(let id, let position, let speechEnd, let decidedAt):
            Structure(Self.likelyEndName, [
                ("segment-id", .uint64(id)), ("position", .uint64(position)), ("speech-end", .uint64(speechEnd)),
                ("decided-at", .uint64(decidedAt)),
            ])
        case .resumed(let id, let at):
            Structure(Self.resumedName, [("segment-id", .uint64(id)), ("at", .uint64(at))])
        }
    }

    public var event: Event { Event.customDownstream(structure) }

    /// Reads a speech boundary from an event, or nil if it is something else.
    public init?(_ event: Event) {
        guard case .customDownstream(let structure) = event.view else { return nil }
        self.init(structure)
    }

    public init?(_ structure: Structure) {
        guard let id = structure["segment-id"]?.uint64 else { return nil }
        switch structure.name {
        case Self.startName:
            self = .start(segmentID: id, pts: structure["start"]?.uint64 ?? 0)
        case Self.endName:
            self = .end(segmentID: id, start: structure["start"]?.uint64 ?? 0, end: structure["end"]?.uint64 ?? 0,
                        speechEnd: structure["speech-end"]?.uint64 ?? 0,
                        reason: SegmentEndReason(rawValue: structure["reason"]?.string ?? "") ?? .silence,
                        decidedAt: structure["decided-at"]?.uint64 ?? 0)
        case Self.likelyEndName:
            self = .likelyEnd(segmentID: id, position: structure["position"]?.uint64 ?? 0,
                              speechEnd: structure["speech-end"]?.uint64 ?? 0, decidedAt: structure["decided-at"]?.uint64 ?? 0)
        case Self.resumedName:
            self = .resumed(segmentID: id, at: structure["at"]?.uint64 ?? 0)
        default:
            return nil
        }
    }
}

extension SpeechBoundary {
    // The fields of each event, as parley inspect and docs/reference.md show them.
    public static let startDoc = StructureDoc(.downstreamEvent, startName,
                                              when: "before an utterance's first buffer (serialized)", fields: [
        SpeechDocs.segmentID,
        StructureDoc.Field("start", .uint64, "Stream time of the utterance's first sample (ns)"),
    ])

    public static let likelyEndDoc = StructureDoc(.downstreamEvent, likelyEndName,
                                                  when: "after likely-end-ms of silence in a segment, before silence-duration-ms confirms its end (serialized; at most once a pause)", fields: [
        SpeechDocs.segmentID,
        StructureDoc.Field("position", .uint64, "Stream time up to which the segment's audio has been sent (ns)"),
        StructureDoc.Field("speech-end", .uint64, "Stream time where the last speech frame ended (ns)"),
        StructureDoc.Field("decided-at", .uint64, "CLOCK_MONOTONIC instant the VAD found the end likely (ns)"),
    ])

    public static let resumedDoc = StructureDoc(.downstreamEvent, resumedName,
                                                when: "when speech goes on after a likely end, withdrawing it (serialized)", fields: [
        SpeechDocs.segmentID,
        StructureDoc.Field("at", .uint64, "Stream time of the speech that withdrew it (ns)"),
    ])

    public static let endDoc = StructureDoc(.downstreamEvent, endName,
                                            when: "after an utterance's last buffer (serialized)", fields: [
        SpeechDocs.segmentID,
        StructureDoc.Field("start", .uint64, "Stream time of the utterance's first sample (ns)"),
        StructureDoc.Field("end", .uint64, "Stream time where the segment was cut (ns)"),
        StructureDoc.Field("speech-end", .uint64, "Stream time where the last speech frame ended (ns)"),
        StructureDoc.Field("reason", .string, "Why it ended: \(SegmentEndReason.allCases.map(\.rawValue).joined(separator: ", "))"),
        StructureDoc.Field("decided-at", .uint64, "CLOCK_MONOTONIC instant the VAD decided (ns): the start of voice-to-voice"),
    ])
}

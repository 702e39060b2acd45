/// The speech data model shared by every element: what a segment is, how it
/// ended and what became of it. Raw values are the strings on the wire
/// (event and message fields, property nicks).

/// What an element made of a segment. Partials are never mistaken for finals:
/// a consumer that wants finals ignores everything but `.final`.
public enum SpeechStatus: Int32, Sendable, CaseIterable, CustomStringConvertible {
    case partial = 0
    case final = 1
    case failed = 2
    case skipped = 3

    public var description: String {
        switch self {
        case .partial: "partial"
        case .final: "final"
        case .failed: "failed"
        case .skipped: "skipped"
        }
    }

    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = match
    }
}

/// Why the VAD closed a segment.
public enum SegmentEndReason: String, Sendable, CaseIterable {
    case silence
    case maxDuration = "max-duration"
    case pttRelease = "ptt-release"
    case eos
    /// `mode` changed while the segment was open (vad ↔ ptt while PLAYING).
    case modeChange = "mode-change"
}

/// A latency stage. The order is the order a segment passes them in.
public enum LatencyStamp: Int, Sendable, CaseIterable, CustomStringConvertible {
    case speechEnd = 0
    case segmentEmitted
    case requestSent
    case firstByte
    case resultComplete
    case firstAudioOut

    public var description: String {
        switch self {
        case .speechEnd: "speech-end"
        case .segmentEmitted: "segment-emitted"
        case .requestSent: "request-sent"
        case .firstByte: "first-byte"
        case .resultComplete: "result-complete"
        case .firstAudioOut: "first-audio-out"
        }
    }
}

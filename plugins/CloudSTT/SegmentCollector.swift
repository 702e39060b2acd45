import GstKit
import ParleySpeech
import ParleyCore

/// The audio of one segment, and what the VAD said about it.
struct SpeechSegment: Sendable {
    var id: UInt64
    var start: UInt64
    var rate: Int
    var samples: [Int16] = []
    /// Monotonic time the VAD decided the segment had ended (latency origin).
    var decidedAt: UInt64?
    var speechEnd: UInt64?

    var duration: UInt64 { UInt64(samples.count) * Gst.second / UInt64(max(1, rate)) }
}

/// Gathers audio into segments on the streaming thread: between
/// `parley/speech-start` and `parley/speech-end` when the VAD sends them,
/// else every max-segment-ms.
struct SegmentCollector {
    var rate = 16_000
    /// Seen speech events: from now on only they delimit segments.
    private var evented = false
    private var current: SpeechSegment?
    private var nextAutomaticID: UInt64 = 0

    init(rate: Int = 16_000) { self.rate = rate }

    /// The segment open now, as heard so far.
    var open: SpeechSegment? { current }

    /// The open segment's ID and how many samples it holds.
    var openCount: (id: UInt64, count: Int)? { current.map { ($0.id, $0.samples.count) } }

    mutating func append(_ samples: [Int16], pts: UInt64, maxSegmentMs: Int) -> SpeechSegment? {
        if current == nil && !evented {
            current = SpeechSegment(id: nextAutomaticID, start: pts == Gst.clockTimeNone ? 0 : pts, rate: rate)
            nextAutomaticID += 1
        }
        guard current != nil else { return nil }  // between segments: not speech
        current!.samples += samples
        if !evented && current!.duration >= UInt64(maxSegmentMs) * Gst.millisecond {
            defer { current = nil }
            return current
        }
        return nil
    }

    /// What a speech event does to the segments.
    enum Step: Sendable {
        /// A segment completed.
        case completed(SpeechSegment)
        /// Segment `id`'s end is likely: its audio so far.
        case likelyEnd(SpeechSegment)
        /// The likely end of segment `id` is withdrawn: its speaker went on.
        case resumed(id: UInt64)
    }

    /// A speech event; returns what it does (the segments it completes,
    /// a likely end of the open one, or its withdrawal).
    mutating func boundary(_ boundary: SpeechBoundary) -> [Step] {
        switch boundary {
        case .likelyEnd(let id, _, let speechEnd, let decidedAt):
            guard evented, var open = current, open.id == id, !open.samples.isEmpty else { return [] }
            open.speechEnd = speechEnd
            open.decidedAt = decidedAt
            return [.likelyEnd(open)]
        case .resumed(let id, _):
            return evented && current?.id == id ? [.resumed(id: id)] : []
        default:
            return completed(by: boundary).map { .completed($0) }
        }
    }

    /// A speech-start or speech-end event; returns the segments it completes.
    private mutating func completed(by boundary: SpeechBoundary) -> [SpeechSegment] {
        var done: [SpeechSegment] = []
        if !evented, let automatic = current, !automatic.samples.isEmpty { done.append(automatic) }
        if !evented { current = nil }
        evented = true
        switch boundary {
        case .start(let id, let pts):
            if let open = current { done.append(open) }  // a start without an end: close what was open
            current = SpeechSegment(id: id, start: pts, rate: rate)
        case .end(let id, let start, _, let speechEnd, _, let decidedAt):
            var segment = current ?? SpeechSegment(id: id, start: start, rate: rate)
            segment.decidedAt = decidedAt
            segment.speechEnd = speechEnd
            done.append(segment)
            current = nil
        case .likelyEnd, .resumed:
            break
        }
        return done
    }

    /// EOS: what is still open, if it holds audio.
    mutating func finish() -> SpeechSegment? {
        defer { current = nil }
        guard let open = current, !open.samples.isEmpty else { return nil }
        return open
    }
}

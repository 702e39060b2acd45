import GstKit
import Synchronization

/// Where a text-to-speech element's spoken results fall on its output
/// timeline, and which of them are still wanted: one value, shared by
/// cloudtts and espeaktts, replaced whole on READY→PAUSED. Pure: the element
/// keeps it behind a lock (`Shared`) and asks it; the rules live here and are
/// tested here.
///
/// - Placement: a result starts at its text's PTS, or when the speech before
///   it ends if that is later, so results fetched at the same time never
///   overlap; a result with no PTS follows the speech before it.
/// - Barge-in (`overlap=interrupt`): the first result of a new segment starts
///   a new generation; speech of an older generation stops and what is
///   queued of it is dropped. Results of the same segment (a translation's
///   sentences, `emit=sentences`) never cut each other.
/// - Catching up (`overlap=compress`): a result whose speech would start
///   more than `catchUpGrace` after its speaker stopped (`behind`) is spoken
///   faster, 1 + (behind − grace) / `catchUpSeconds` times, at most the
///   element's `max-speed-up`: a second behind is spoken at about 1.13×,
///   2.5 s at 1.5×. The speed is asked of the provider with the request
///   (every provider has a speed: espeak-ng's rate, Piper's length scale,
///   OpenAI's `speed`), so the voice stays natural. What is behind counts
///   the speech placed and the speech made but not yet placed (`schedule`,
///   as each chunk arrives from the provider): a result fetched while the
///   one before it is still being made (max-in-flight=2) counts what has
///   arrived of it so far.
/// - A flush stops everything in progress (a new generation) and, once over,
///   restarts the timeline at 0.
public struct SpeechTimeline: Sendable, Equatable {
    /// Stream time at which the last speech placed ends.
    public private(set) var nextFree: UInt64 = 0
    /// Where the speech made so far will end once placed (at least `nextFree`).
    public private(set) var scheduledEnd: UInt64 = 0
    /// Speech of a generation older than this is no longer wanted.
    public private(set) var generation: UInt64 = 0
    /// The segment of the last result accepted.
    public private(set) var lastSegment: UInt64?
    /// Results received so far: numbers the ones that carry no speech meta.
    public private(set) var received: UInt64 = 0
    /// The stream's language from its tags, for results whose meta does not say.
    public var streamLanguage = ""
    /// The rate of the caps last pushed downstream.
    public private(set) var pushedRate: Int?

    public init(pushedRate: Int? = nil) {
        self.pushedRate = pushedRate
    }

    /// A result arrived: its number in arrival order (what a result with no meta is called).
    public mutating func receive() -> UInt64 {
        defer { received += 1 }
        return received
    }

    /// A result of `segment` is to be spoken under `overlap`: the generation
    /// it belongs to (a new one when it barges in).
    public mutating func accept(segment: UInt64, overlap: SpeechOverlap) -> UInt64 {
        let newSegment = lastSegment != segment
        lastSegment = segment
        if overlap == .interrupt && newSegment { generation += 1 }
        return generation
    }

    /// Whether speech of `generation` is still wanted.
    public func isCurrent(_ generation: UInt64) -> Bool { generation >= self.generation }

    /// Where a result whose text is stamped `pts` starts, placed now.
    public func start(for pts: UInt64) -> UInt64 {
        pts == Gst.clockTimeNone ? nextFree : max(pts, nextFree)
    }

    /// Past this much behind its speaker, a result is spoken faster (`overlap=compress`).
    public static let catchUpGrace: UInt64 = 500 * Gst.millisecond
    /// Each further this-many seconds behind adds 1 to the speed (before `max-speed-up`).
    public static let catchUpSeconds = 4.0
    /// The ceiling cloudtts's `max-speed-up` starts at, and espeaktts keeps.
    public static let defaultMaxSpeedUp = 1.5

    /// How much faster a result whose speaker stopped at `speechEnd` (its
    /// meta's speech end; else its text's `pts`) is spoken to catch up, at
    /// most `maxSpeedUp`; 1 when it is not behind.
    public func catchUpSpeed(speechEnd: UInt64, pts: UInt64, maxSpeedUp: Double) -> Double {
        let reference = speechEnd != Gst.clockTimeNone ? speechEnd : pts
        let end = max(nextFree, scheduledEnd)
        guard reference != Gst.clockTimeNone, end > reference + Self.catchUpGrace else { return 1 }
        let behind = Double(end - reference - Self.catchUpGrace) / Double(Gst.second)
        return min(max(1, maxSpeedUp), 1 + behind / Self.catchUpSeconds)
    }

    /// Speech placed on the timeline reaches `end`.
    public mutating func spoke(until end: UInt64) { nextFree = max(nextFree, end) }

    /// How much faster a result of `meta`, its text stamped `pts`, is
    /// spoken under `overlap`: `catchUpSpeed` from its speech end under
    /// compress, 1 under the others.
    public func speedUp(for meta: SpeechMeta, pts: UInt64, overlap: SpeechOverlap, maxSpeedUp: Double) -> Double {
        overlap == .compress ? catchUpSpeed(speechEnd: meta.speechEndAudioTime, pts: pts, maxSpeedUp: maxSpeedUp) : 1
    }

    /// `samples` of speech at `rate` were made, not yet placed: a result's
    /// first chunk gives its text's `pts` (it starts there or after what is
    /// scheduled), the chunks after it none (they follow it).
    public mutating func schedule(samples: Int, rate: Int, firstAt pts: UInt64?) {
        var start = max(scheduledEnd, nextFree)
        if let pts, pts != Gst.clockTimeNone { start = max(start, pts) }
        scheduledEnd = start + UInt64(samples) * Gst.second / UInt64(rate)
    }

    /// Audio at `rate` is about to leave: true when downstream must be told
    /// new caps first (the first audio, or a fallback provider at another rate).
    public mutating func switchRate(to rate: Int) -> Bool {
        defer { pushedRate = rate }
        return pushedRate != rate
    }

    /// FLUSH_START: everything speaking or queued stops.
    public mutating func flushStarted() { generation += 1 }

    /// FLUSH_STOP: the timeline starts again at 0.
    public mutating func flushStopped() {
        nextFree = 0
        scheduledEnd = 0
    }

    /// The timeline behind the element's lock, for the streaming thread,
    /// the push thread and the synthesis callbacks alike.
    public final class Shared: Sendable {
        private let state: Mutex<SpeechTimeline>

        public init(_ timeline: SpeechTimeline = SpeechTimeline()) { state = Mutex(timeline) }

        public func withLock<Result: Sendable>(_ body: (inout SpeechTimeline) -> Result) -> Result {
            state.withLock { body(&$0) }
        }

        /// Replaces it whole (READY→PAUSED).
        public func reset(_ timeline: SpeechTimeline) { state.withLock { $0 = timeline } }

        /// Whether speech of `generation` is still wanted.
        public func isCurrent(_ generation: UInt64) -> Bool { state.withLock { $0.isCurrent(generation) } }

        /// What stands in for a result that is not spoken (failed, skipped,
        /// empty): a GAP where it would have started, so sinks downstream
        /// preroll and a tee's audio branch keeps flowing however many
        /// results in a row have no speech. For the push thread, in order.
        public func gap(for pts: UInt64) -> Event { Event.gap(timestamp: withLock { $0.start(for: pts) }, duration: 0) }

        /// The work a result with nothing to speak (failed or skipped
        /// upstream, empty) becomes: its `gap`, in its place in order.
        public func unspoken(at pts: UInt64) -> StageWork {
            StageWork({ [self] in
                var output = StageOutput()
                output.prepare = { $0.eventsBefore.append(self.gap(for: pts)) }
                return output
            }, placeholder: { _ in StageOutput() })
        }
    }
}

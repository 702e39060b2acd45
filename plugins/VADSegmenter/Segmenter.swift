import ParleyCore

/// How segments are cut.
public enum SegmentationMode: Int, Sendable {
    /// Voice activity decides.
    case vad = 0
    /// Push-to-talk: a segment is exactly while `ptt-active` is true.
    case ptt = 1
    /// One segment from the first sample to EOS.
    case always = 2
}

/// The segmenter's settings. No defaults here: the element builds them from
/// its `DEFAULT_*` constants, the one place they are stated.
public struct SegmenterConfiguration: Sendable, Equatable {
    public var threshold: Float
    /// In vad mode, the probability at least half of min-speech-ms must
    /// reach before a segment opens (see `Segmenter`); at or under
    /// `threshold` it asks nothing more.
    public var onsetThreshold: Float
    public var prefixPaddingMs: Int
    public var silenceDurationMs: Int
    public var minSpeechMs: Int
    public var maxSegmentMs: Int
    public var mode: SegmentationMode
    public var dropSilence: Bool
    /// In vad mode, the silence after which a segment's end is likely
    /// (`likelyEnd`), before silence-duration-ms confirms it; 0 = never said.
    public var likelyEndMs: Int
    /// In vad mode, once a segment holds this much audio a pause of
    /// `longSpeechSilenceMs` ends it: a speaker who never pauses for
    /// silence-duration-ms is cut at breaths, not at max-segment-ms. 0 = off.
    public var longSpeechMs: Int
    public var longSpeechSilenceMs: Int
    public init(threshold: Float, onsetThreshold: Float, prefixPaddingMs: Int, silenceDurationMs: Int, minSpeechMs: Int,
                maxSegmentMs: Int, mode: SegmentationMode, dropSilence: Bool, likelyEndMs: Int,
                longSpeechMs: Int = 0, longSpeechSilenceMs: Int = 150) {
        self.longSpeechMs = longSpeechMs
        self.longSpeechSilenceMs = longSpeechSilenceMs
        self.threshold = threshold
        self.onsetThreshold = onsetThreshold
        self.prefixPaddingMs = prefixPaddingMs
        self.silenceDurationMs = silenceDurationMs
        self.minSpeechMs = minSpeechMs
        self.maxSegmentMs = maxSegmentMs
        self.mode = mode
        self.dropSilence = dropSilence
        self.likelyEndMs = likelyEndMs
    }
}

/// 10 ms of audio with what the detector made of it. `samples` is a view
/// into the input buffer's samples (shared storage, no copy of its own).
public struct Frame: Sendable {
    public var samples: ArraySlice<Int16>
    public var pts: UInt64
    public var duration: UInt64
    public var probability: Float
    public var energy: Double
    public var end: UInt64 { pts + duration }

    public init(samples: ArraySlice<Int16>, pts: UInt64, duration: UInt64, probability: Float, energy: Double) {
        self.samples = samples
        self.pts = pts
        self.duration = duration
        self.probability = probability
        self.energy = energy
    }
}

public enum SegmenterAction: Sendable {
    case start(id: UInt64, pts: UInt64)
    /// Audio to pass on; `segment` is nil outside segments (drop-silence=false).
    case audio(Frame, segment: UInt64?)
    /// `mode` is the mode that cut it (for mode-change, the one switched from).
    case end(id: UInt64, start: UInt64, end: UInt64, speechEnd: UInt64, reason: SegmentEndReason, meanProbability: Float,
             mode: SegmentationMode)
    /// The segment's end is likely: likely-end-ms of silence followed its
    /// last speech (`speechEnd`); the audio through `position` has been passed on.
    case likelyEnd(id: UInt64, position: UInt64, speechEnd: UInt64)
    /// Speech resumed after a likely end: that end is withdrawn.
    case resumed(id: UInt64, at: UInt64)
}

/// The segmentation state machine, free of GStreamer so it can be reasoned
/// about (and tested) on its own. Feed it frames in order; it says what to
/// push.
///
/// In vad mode a segment opens on speech that is both long enough and
/// heard with confidence: min-speech-ms of frames at or over `threshold`
/// (a pause shorter than silence-duration-ms between them does not start
/// the count again; the count is over the last min-speech-ms +
/// silence-duration-ms), at least half of them at or over `onsetThreshold`.
/// Speech probable but never confident (a dog's bark or a penguin's call,
/// which the detector puts at 0.6-0.7) opens nothing; once open, `threshold`
/// alone keeps the segment going and ends it, and the segment starts at
/// the first frame at or over `threshold`, prefix padding before it.
///
/// It ends once silence-duration-ms of silence has been counted after its
/// last sure speech. A frame under `threshold` counts in full; a frame the
/// detector doubts, at or over `threshold` but under `threshold` +
/// `doubtBand`, counts in part (the nearer `threshold`, the more) and does
/// not start the count again; a frame over that does. See `doubtBand`.
///
/// On the way, once likely-end-ms of that silence is counted (the same
/// counting, the lookahead included), the end is said to be likely, once a
/// pause; sure speech after it withdraws it (`resumed`), and a later pause
/// may be likely again. Not while frames are held near max-segment-ms: the
/// audio said to be complete must have been passed on.
public struct Segmenter {
    /// How far over `threshold` a frame is doubted rather than sure speech.
    ///
    /// Why: after the last word the detector's probability falls slowly,
    /// and in noise it hovers at 0.5-0.6 for 100-300 ms (what it heard is
    /// hard to tell from a word's trailing breath). Each such frame used to
    /// start the silence count again, so those segments ended up to 600 ms
    /// after the setting (the long tail of the end-of-speech figures).
    /// Counted in part, they move the tail in without cutting sentences:
    /// on the held-out set (benchmarks/vad/heldout, chosen there, not on
    /// vadbench) the end of speech went from 590 / 760 ms (median / p95) to
    /// 580 / 712 at the same 12 splits. 0.15 gave 700 at the same splits
    /// but 0.2 split more; 0.1 keeps a step from that edge. A full count
    /// for doubted frames (a release threshold of 0.6) split far more.
    public static let doubtBand: Float = 0.1

    /// What a frame adds to the silence counted in an open segment: 1 under
    /// `threshold`, 0 to 1 for a doubted one (1 at `threshold`, nearly 0
    /// just under the band's top); nil for sure speech, which starts it again.
    static func silenceWeight(of probability: Float, threshold: Float) -> Float? {
        if probability < threshold { return 1 }
        let sure = min(1, threshold + doubtBand)
        guard probability < sure, sure > threshold else { return nil }
        return (sure - probability) / (sure - threshold)
    }

    public var configuration: SegmenterConfiguration
    private var nextID: UInt64 = 0
    /// Recent frames not yet in a segment: the prefix padding and the
    /// candidate speech waiting for min-speech-ms.
    private var recent: [Frame] = []
    private var candidateStart: Int?
    private var candidateSpeechFrames = 0
    /// Of those, the frames at or over the onset threshold.
    private var candidateConfidentFrames = 0
    private var candidateSilence = 0
    private var open: Open?
    /// Frames held back near max-segment-ms, to cut at the quietest one.
    private var held: [Frame] = []
    /// Frames of audio already heard after each frame when it is pushed (the
    /// detector's lookahead: it judged the frame with them in hand).
    public let heardAhead: Int

    struct Open {
        var id: UInt64
        var start: UInt64
        /// Frames taken in, those held near max-segment-ms included.
        var frames = 0
        /// Frames of silence counted since the last sure speech (doubted frames in part).
        var silence: Float = 0
        /// Over the frames that are the segment's for good: not those still
        /// held, which a cut at max-segment-ms may give to the next segment.
        var lastSpeechEnd: UInt64
        var probabilitySum: Float = 0
        var framesKept = 0
        /// A likely end was said for the pause now counted, and not withdrawn.
        var likelyEndSaid = false

        mutating func keep(_ frame: Frame, threshold: Float) {
            framesKept += 1
            probabilitySum += frame.probability
            if frame.probability >= threshold { lastSpeechEnd = frame.end }
        }
    }

    /// `heardAhead`: how many frames of audio had arrived after each frame
    /// by the time it is pushed with its probability. In vad mode they count
    /// towards silence-duration-ms: a segment closes once that much audio has
    /// arrived after its last speech frame (less, when doubted frames before
    /// it counted in part; see `doubtBand`), the last `heardAhead` frames of
    /// it heard by the detector but not yet judged one by one. So the close
    /// is decided silence-duration-ms after the speech, not that plus the
    /// lookahead; a pause survives if its first silence-duration-ms −
    /// `heardAhead` × 10 ms are not all judged silent.
    public init(_ configuration: SegmenterConfiguration, heardAhead: Int = 0) {
        self.configuration = configuration
        self.heardAhead = max(0, heardAhead)
    }

    private func frames(_ ms: Int) -> Int { max(0, ms / 10) }
    public var isInSegment: Bool { open != nil }

    public mutating func push(_ frame: Frame, pttActive: Bool) -> [SegmenterAction] {
        switch configuration.mode {
        case .always:
            var actions: [SegmenterAction] = []
            if open == nil { actions.append(begin(at: frame.pts)) }
            actions.append(contentsOf: continueSegment(frame, allowEnd: false))
            return actions
        case .ptt:
            var actions: [SegmenterAction] = []
            if pttActive && open == nil { actions.append(begin(at: frame.pts)) }
            if !pttActive, open != nil { actions.append(contentsOf: close(at: frame.pts, reason: .pttRelease)) }
            if let open {
                actions.append(contentsOf: continueSegment(frame, allowEnd: false))
                _ = open
            } else if !configuration.dropSilence {
                actions.append(.audio(frame, segment: nil))
            }
            return actions
        case .vad:
            if open != nil { return continueSegment(frame, allowEnd: true) }
            return idle(frame)
        }
    }

    /// EOS: closes an open segment; a candidate too short to count is dropped.
    public mutating func finish() -> [SegmenterAction] { closeAll(reason: .eos) }

    /// A new mode from the next frame on (the interaction mode switched
    /// while running). A segment still open ends here with `mode-change`, so
    /// no segment mixes two ways of deciding; speech the VAD was still
    /// weighing is dropped, as at EOS.
    public mutating func switchMode(to mode: SegmentationMode) -> [SegmenterAction] {
        guard mode != configuration.mode else { return [] }
        let actions = closeAll(reason: .modeChange)
        configuration.mode = mode
        return actions
    }

    private mutating func closeAll(reason: SegmentEndReason) -> [SegmenterAction] {
        var actions: [SegmenterAction] = []
        if open != nil {
            for frame in held { actions.append(keep(frame)) }
            let end = held.last?.end ?? open!.start
            held.removeAll()
            actions.append(contentsOf: close(at: max(end, lastEnd), reason: reason))
        }
        recent.removeAll()
        candidateStart = nil
        return actions
    }

    private var lastEnd: UInt64 = 0

    private mutating func idle(_ frame: Frame) -> [SegmenterAction] {
        var actions: [SegmenterAction] = []
        if !configuration.dropSilence { actions.append(.audio(frame, segment: nil)) }
        recent.append(frame)
        let isSpeech = frame.probability >= configuration.threshold
        let isConfident = isSpeech && frame.probability >= configuration.onsetThreshold
        if candidateStart != nil {
            if isSpeech {
                candidateSpeechFrames += 1
                if isConfident { candidateConfidentFrames += 1 }
                candidateSilence = 0
            } else {
                candidateSilence += 1
                if candidateSilence >= max(1, frames(configuration.silenceDurationMs)) { candidateStart = nil }
            }
        } else if isSpeech {
            candidateStart = recent.count - 1
            candidateSpeechFrames = 1
            candidateConfidentFrames = isConfident ? 1 : 0
            candidateSilence = 0
        }
        let minimum = frames(configuration.minSpeechMs)
        let window = minimum + frames(configuration.silenceDurationMs) + 1
        if let start = candidateStart, recent.count - start > window { slideCandidate(within: window) }
        if let start = candidateStart, candidateSpeechFrames >= max(1, minimum),
           candidateConfidentFrames >= max(1, minimum / 2) {
            return actions + confirm(candidateAt: start)
        }
        // Keep only what a future segment could still need: the candidate and
        // the prefix padding before it.
        let keep = frames(configuration.prefixPaddingMs) + window
        if recent.count > keep {
            let drop = recent.count - keep
            recent.removeFirst(drop)
            if let start = candidateStart { candidateStart = start - drop }
        }
        return actions
    }

    /// The speech that opens a segment is counted over the last `window`
    /// frames (min-speech-ms + silence-duration-ms): a candidate older than
    /// that starts again at its first speech frame inside them, with what
    /// they hold. Not dropped whole: a short word, a pause and a second word
    /// must not lose the first when the window passes its start (alsa-utils'
    /// "Front, Center" made one segment or none by the prefix padding, which
    /// decided how long the window was). Not kept whole either: a long run
    /// of sounds the detector half believes must not open a segment seconds
    /// before the speech that confirms it.
    private mutating func slideCandidate(within window: Int) {
        let threshold = configuration.threshold, onset = configuration.onsetThreshold
        guard let first = recent[(recent.count - window)...].firstIndex(where: { $0.probability >= threshold }) else {
            candidateStart = nil
            return
        }
        candidateStart = first
        candidateSpeechFrames = 0
        candidateConfidentFrames = 0
        for frame in recent[first...] where frame.probability >= threshold {
            candidateSpeechFrames += 1
            if frame.probability >= onset { candidateConfidentFrames += 1 }
        }
    }

    /// Enough speech: open a segment that starts prefix-padding-ms before it.
    private mutating func confirm(candidateAt start: Int) -> [SegmenterAction] {
        let pending = recent[max(0, start - frames(configuration.prefixPaddingMs))...]
        var actions = [begin(at: pending.first!.pts)]
        for frame in pending {
            // With drop-silence=false these frames were passed on already.
            if configuration.dropSilence { actions.append(.audio(frame, segment: open!.id)) }
            open!.frames += 1
            open!.keep(frame, threshold: configuration.threshold)
            lastEnd = frame.end
        }
        recent.removeAll()
        candidateStart = nil
        return actions
    }

    private mutating func begin(at pts: UInt64) -> SegmenterAction {
        let id = nextID
        nextID += 1
        open = Open(id: id, start: pts, lastSpeechEnd: pts)
        return .start(id: id, pts: pts)
    }

    private mutating func continueSegment(_ frame: Frame, allowEnd: Bool) -> [SegmenterAction] {
        guard open != nil else { return [] }
        var actions: [SegmenterAction] = []
        open!.frames += 1
        open!.silence = Self.silenceWeight(of: frame.probability, threshold: configuration.threshold)
            .map { open!.silence + $0 } ?? 0
        let (taken, silence) = (open!.frames, open!.silence)
        let maxFrames = max(1, frames(configuration.maxSegmentMs))
        // Up to 500 ms to find a pause in. Measured, not guessed: LibriVox
        // read on with no pause (297 s, Whisper-base, max-segment-ms 5000, 61
        // cuts) came out at 4.2% WER with this. Looking 1.25 s back (for the
        // quietest frame, or for the longest run under threshold first) made
        // 5.4-6.9%: earlier cuts, more segments, each cut costing words. In
        // these 500 ms the lowest probability or a 50 ms mean of energy made
        // 5.2-5.5%; the longest run under threshold first, 4.0% (two words
        // of 852, not worth a rule).
        let lookback = min(50, maxFrames / 4)
        if taken > maxFrames - lookback {
            held.append(frame)
        } else {
            actions.append(keep(frame))
            lastEnd = frame.end
        }
        // Whole frames add exact integers; the allowance is for partial ones' rounding.
        let closes = allowEnd && silence >= Float(max(1, frames(closingSilenceMs(after: taken)) - heardAhead)) - 1e-3
        if allowEnd && !closes { actions.append(contentsOf: likelyEnd(after: frame, silence: silence)) }
        if closes {
            for heldFrame in held { actions.append(keep(heldFrame)) }
            let end = held.last?.end ?? frame.end
            held.removeAll()
            actions.append(contentsOf: close(at: end, reason: .silence))
            return actions
        }
        if taken >= maxFrames {
            // Cut at the quietest held frame so no word is split.
            let quietest = held.indices.min { held[$0].energy < held[$1].energy } ?? 0
            for heldFrame in held[...quietest] { actions.append(keep(heldFrame)) }
            let cut = held[quietest].end
            let rest = Array(held[(quietest + 1)...])
            held.removeAll()
            actions.append(contentsOf: close(at: cut, reason: .maxDuration))
            if !rest.isEmpty || configuration.mode != .vad {
                actions.append(begin(at: cut))
                for restFrame in rest {
                    open!.frames += 1
                    actions.append(keep(restFrame))
                }
                lastEnd = rest.last?.end ?? cut
            }
        }
        return actions
    }

    /// The silence that ends a segment of `taken` frames: long-speech-silence-ms
    /// once it holds long-speech-ms of audio, else silence-duration-ms.
    private func closingSilenceMs(after taken: Int) -> Int {
        guard configuration.longSpeechMs > 0, taken >= frames(configuration.longSpeechMs) else { return configuration.silenceDurationMs }
        return min(configuration.longSpeechSilenceMs, configuration.silenceDurationMs)
    }

    /// Whether the pause being counted has made the end likely, or sure
    /// speech has withdrawn a likely end said before.
    private mutating func likelyEnd(after frame: Frame, silence: Float) -> [SegmenterAction] {
        guard configuration.likelyEndMs > 0, let segment = open else { return [] }
        if segment.likelyEndSaid && silence == 0 {
            open!.likelyEndSaid = false
            return [.resumed(id: segment.id, at: frame.pts)]
        }
        let likely = Float(max(1, frames(configuration.likelyEndMs) - heardAhead)) - 1e-3
        guard !segment.likelyEndSaid, held.isEmpty, silence >= likely else { return [] }
        open!.likelyEndSaid = true
        return [.likelyEnd(id: segment.id, position: frame.end, speechEnd: segment.lastSpeechEnd)]
    }

    /// A frame that is the open segment's for good: counted in its speech end
    /// and mean probability, and passed on.
    private mutating func keep(_ frame: Frame) -> SegmenterAction {
        open!.keep(frame, threshold: configuration.threshold)
        return .audio(frame, segment: open!.id)
    }

    private mutating func close(at end: UInt64, reason: SegmentEndReason) -> [SegmenterAction] {
        guard let segment = open else { return [] }
        open = nil
        let mean = segment.framesKept > 0 ? segment.probabilitySum / Float(segment.framesKept) : 0
        return [.end(id: segment.id, start: segment.start, end: end, speechEnd: segment.lastSpeechEnd,
                     reason: reason, meanProbability: mean, mode: configuration.mode)]
    }
}

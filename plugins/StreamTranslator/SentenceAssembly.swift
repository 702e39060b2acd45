import Foundation
import ParleyCore
import ParleySpeech

/// Sentence assembly (`max-hold-ms`): consecutive final texts are joined
/// until one ends a sentence, so a sentence cut by a thinking pause is
/// translated whole, not in two pieces that disagree.
///
/// The rule, per final text as it arrives (in segment order):
/// - it completes a sentence (SentenceSplitter: `.`, `!`, `?`, `…` and the
///   CJK stops, abbreviations and initials excepted; a trailing `...` is a
///   thought trailing off, not an end): what is held and it go out at once,
///   joined. A speaker who talks in whole sentences pays nothing.
/// - it does not: it is held, joined to what was held before. What is held
///   goes out when the hold budget runs out (`max-hold-ms`, counted from the
///   first text held, not reset by the ones joined to it, so the delay is
///   bounded), or when something that cannot be joined arrives (a failed,
///   skipped or empty result), or at EOS — or, behind vadsegmenter, when
///   the speaker has stayed quiet: no `parley/speech-start` after the held
///   segment within `quiet` (1 s) of the VAD deciding it was over (1.5 s of
///   silence at the default 500 ms). A last sentence Whisper left without
///   its full stop then waits that second, not the whole budget; a thinking
///   pause shorter than that keeps the text for the rest of its sentence.
///
/// A joined text leaves as the last segment's result (its id, its meta),
/// spanning from the first segment's start; the segments it absorbed have
/// no translation of their own, and their first id travels in the meta
/// (`first-segment-id`) so recorders and subtitles map it back.
///
/// Pure: the element keeps one under its lock, and holds the work of each
/// held text in the queue until `claim` says what became of it.
struct SentenceAssembly {
    /// Texts joined so far, waiting for the end of their sentence.
    struct Held {
        var segment: TextSegment
        /// Numbers this holding: a claim names the one it waits for.
        var generation: UInt64
        /// When the budget runs out (monotonic ns).
        var deadline: UInt64
        /// When the VAD decided the last joined segment was over (its meta's
        /// speech-end stamp, monotonic ns); nil without a VAD upstream.
        var decidedAt: UInt64? { segment.meta.stamps[.speechEnd] }
    }

    /// How long after the VAD's decision a held text waits for the speaker to go on.
    static let quiet: UInt64 = 1_000_000_000

    /// What to do with an arriving text.
    enum Step: Equatable {
        /// Translate this text now (alone, or with what was held joined in front).
        case translate(TextSegment)
        /// Hold it (joined to what was held): its work waits, as `generation`.
        case hold(generation: UInt64)
    }

    /// What a held text's waiting work learns when it asks.
    enum Claim: Equatable {
        /// Still held, budget not spent: keep waiting.
        case wait
        /// Its time is up or it was released: translate this.
        case translate(TextSegment)
        /// A later text took it in: this work has nothing to say.
        case absorbed
    }

    let maxHold: UInt64
    /// What later texts may still join.
    private(set) var held: Held?
    /// What was released early (an unjoinable text or EOS arrived), until its work claims it.
    private(set) var releasing: Held?
    /// The latest segment whose speech has started (vadsegmenter's speech-start).
    private(set) var speaking: UInt64?
    private var nextGeneration: UInt64 = 1

    /// `maxHoldMs` > 0; 0 means no assembly (the element does not make one).
    init(maxHoldMs: Int) {
        maxHold = UInt64(max(0, maxHoldMs)) * 1_000_000
    }

    /// A text that arrived at `now`. `text` is its decoded content when it
    /// is a final that can be joined; nil for anything else (failed,
    /// skipped, empty, not UTF-8), which releases what is held and goes on
    /// alone.
    mutating func receive(_ segment: TextSegment, text: String?, now: UInt64) -> Step {
        guard let text else {
            releaseHeld()
            return .translate(segment)
        }
        var joined = segment
        var deadline = now + maxHold
        if let held {
            joined = Self.join(held.segment, segment)
            deadline = held.deadline
        }
        self.held = nil
        if Self.endsSentence(text) { return .translate(joined) }
        let generation = nextGeneration
        nextGeneration += 1
        held = Held(segment: joined, generation: generation, deadline: deadline)
        return .hold(generation: generation)
    }

    /// A flush: nothing held is wanted (the works waiting for it were cancelled).
    mutating func reset() {
        held = nil
        releasing = nil
    }

    /// EOS or an unjoinable text: what is held goes out now, and nothing
    /// later joins it.
    mutating func releaseHeld() {
        guard let held else { return }
        releasing = held
        self.held = nil
    }

    /// Speech of segment `id` started: the speaker goes on.
    mutating func speechStarted(_ id: UInt64) {
        speaking = max(speaking ?? id, id)
    }

    /// Asked by the work waiting for `generation` at `now`.
    mutating func claim(_ generation: UInt64, now: UInt64) -> Claim {
        if let releasing, releasing.generation == generation {
            self.releasing = nil
            return .translate(releasing.segment)
        }
        guard let held, held.generation == generation else { return .absorbed }
        guard now >= held.deadline || isQuiet(after: held, now: now) else { return .wait }
        self.held = nil
        return .translate(held.segment)
    }

    /// The VAD decided the held speech was over `quiet` ago, and no speech has started since.
    private func isQuiet(after held: Held, now: UInt64) -> Bool {
        guard let decided = held.decidedAt, now >= decided + Self.quiet else { return false }
        return (speaking ?? 0) <= held.segment.meta.segmentID
    }

    /// The work waiting for `generation` was dropped (queue-policy): what it
    /// waited for is forgotten. Whether there was such a text.
    mutating func drop(_ generation: UInt64) -> Bool {
        if releasing?.generation == generation { releasing = nil; return true }
        if held?.generation == generation { held = nil; return true }
        return false
    }

    /// The held text (first) and the new one (second) as one segment: the
    /// second's meta and id, the first's start, the texts joined by a space.
    static func join(_ first: TextSegment, _ second: TextSegment) -> TextSegment {
        var joined = second
        joined.bytes = first.bytes + Array(" ".utf8) + second.bytes
        if first.pts != UInt64.max && second.pts != UInt64.max {
            let end = second.duration == UInt64.max ? second.pts : second.pts + second.duration
            joined.pts = first.pts
            joined.duration = end >= first.pts ? end - first.pts : second.duration
        }
        joined.meta.firstSegmentID = first.meta.firstSegmentID ?? first.meta.segmentID
        // The end of speech that counts is the last one's: voice to voice runs from there.
        return joined
    }

    /// Whether `text` ends where a sentence ends.
    static func endsSentence(_ text: String) -> Bool {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return false }
        // "..." or "…" at the end: Whisper's mark of speech that trails off mid-thought.
        let bare = trimmed.trimmingCharacters(in: CharacterSet(charactersIn: "\"'”’»)]"))
        if bare.hasSuffix("...") || bare.hasSuffix("…") { return false }
        return SentenceSplitter.split(trimmed + " ", final: false).rest.trimmingCharacters(in: .whitespaces).isEmpty
    }
}

extension StreamTranslatorElement {
    /// The text of a result that may be joined to others: a final, valid
    /// UTF-8 within the size limit, not empty. nil for anything else, which
    /// goes through validation alone.
    static func joinableText(_ segment: TextSegment) -> String? {
        guard segment.meta.status == .final, segment.bytes.count <= maxTextBytes,
              let text = String(validating: segment.bytes, as: UTF8.self) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// How often a held text's work asks whether it may go: the most a
    /// released text waits beyond its release.
    static let holdPoll: Duration = .milliseconds(5)

    /// The work of a held text, in its place in the queue: it waits until
    /// the text is released (its budget spent, an unjoinable result or EOS
    /// came) and translates it then, or finds a later text took it in and
    /// says nothing (that text's result covers this segment too).
    func heldWork(_ generation: UInt64, for segment: TextSegment) -> StageWork {
        StageWork(progressive: { [self] emit in
            while !Task.isCancelled {
                let claim = state.withLock { $0.assembly?.claim(generation, now: MonotonicClock.nanoseconds()) ?? .absorbed }
                switch claim {
                case .wait: try? await Task.sleep(for: Self.holdPoll)
                case .absorbed: return StageOutput()
                case .translate(let text): return await work(for: text).run(emit)
                }
            }
            return StageOutput()
        }, placeholder: { [self] reason in
            // Dropped by queue-policy: the text held so far is skipped with it, as the policy says.
            state.withLock { _ = $0.assembly?.drop(generation) }
            return work(for: segment).placeholder(reason)
        })
    }
}

import Foundation
import GstKit
import ParleyCore
import ParleySpeech
import Synchronization

/// When cloudstt transcribes a segment before the silence confirms its end
/// (`speculate`).
public enum STTSpeculation: Int, Sendable, CaseIterable {
    case auto = 0, always = 1, never = 2

    static let values = [
        EnumValue(auto.rawValue, "auto", "With provider=local only (it costs nothing but CPU), in a live pipeline"),
        EnumValue(always.rawValue, "always", "With any provider, in a live pipeline: a segment whose speaker goes on after the likely end costs a request that is thrown away"),
        EnumValue(never.rawValue, "never", "Only once the segment has ended"),
    ]

    /// Whether a chain as written speculates.
    func applies(to chain: String) -> Bool {
        switch self {
        case .always: true
        case .never: false
        case .auto: chain.split(separator: ",").allSatisfy { $0.trimmingCharacters(in: .whitespaces) == STTProvider.local.rawValue }
        }
    }
}

/// Transcriptions started on a likely end (vadsegmenter's
/// `parley/speech-likely-end`), before silence-duration-ms confirms it.
/// When the segment ends with no speech after the likely end, its result is
/// the speculation's (the audio after it is the silence that confirmed the
/// end); when the speaker goes on (`parley/speech-resumed`) the speculation
/// is cancelled (dropped from the engine's queue, or its answer thrown
/// away) and a later pause may start another. Nothing speculative is ever
/// emitted: the segment's one result leaves in order, as any other.
///
/// Kept (keep-speculated-ms): a withdrawn speculation that covers at least
/// that much audio beyond what its segment's kept text covers is not
/// cancelled but runs on, and its text is kept: later speculations and the
/// final transcribe only the audio after it, with the kept text as the
/// prompt, and put it in front of what they hear. A long segment's final
/// then costs what a short one's does, at a word or more where a piece ends
/// mid-sentence (benchmarks/stt/window.md, "Keeping a withdrawn
/// speculation's text"). Off by default. A likely end still deferred when
/// its speaker goes on is kept the same way: it starts, to be kept, once
/// the transcription before it has answered (a short pause that came first,
/// whose cancelled transcription the engine has not dropped yet, must not
/// cost the long piece after it). If the segment ends before it could
/// start, it is dropped: the final then transcribes the whole, one
/// transcription rather than two.
final class Speculations: Sendable {
    typealias Outcome = FallbackChain.Outcome<Transcription>
    /// A transcription of the segment as heard at a likely end, given the
    /// text kept for the segment when it starts.
    typealias Run = @Sendable (Kept?) async -> Outcome

    /// The segment's first `samples` samples, transcribed as `text`.
    struct Kept: Sendable, Equatable {
        var text: String
        var samples: Int

        /// What a transcription of the segment's first `samples` said, if it was served any words.
        init?(_ outcome: Outcome, samples: Int) {
            guard case .served(let transcription, _, _, _) = outcome, !transcription.text.isEmpty else { return nil }
            self.init(text: transcription.text, samples: samples)
        }

        init(text: String, samples: Int) {
            self.text = text
            self.samples = samples
        }

        /// This, if `segment` goes on after it (else a transcription has nothing left to hear).
        func ifAudioFollows(in segment: SpeechSegment) -> Kept? { samples < segment.samples.count ? self : nil }
    }

    /// A withdrawn speculation left to run, whose text is kept when it answers.
    struct Keeping: Sendable {
        var task: Task<Outcome, Never>
        var samples: Int
        /// Which of the segment's speculations it is (1 the first started).
        var generation: Int

        /// What is kept once it answered: its text if it was served, else `before`.
        func settled(after before: Kept?) async -> Kept? {
            Kept(await task.value, samples: samples) ?? before
        }
    }

    /// A likely end's transcription not started yet: the one before it has not answered.
    struct Pending: Sendable {
        var samples: Int
        var run: Run
    }

    struct Entry {
        var task: Task<Outcome, Never>?
        /// How many of the segment's samples `task` transcribes.
        var samples = 0
        /// The kept text `task` was started with (it transcribes the audio after it).
        var taskKept: Kept?
        /// When the transcription in `task` was sent (monotonic ns).
        var startedAt: UInt64 = 0
        /// How many were started for the segment, the withdrawn ones included.
        var started = 0
        /// Set once the last transcription started has answered.
        var answered = Flag()
        /// A likely end that came while a withdrawn one was still being
        /// transcribed: started as soon as that one answers, unless the
        /// speaker goes on first.
        var deferred: Pending?
        /// A deferred likely end the speaker went on after, long enough to
        /// keep: started before `deferred`, to be kept.
        var toKeep: Pending?
        /// The text kept from withdrawn speculations that answered.
        var kept: Kept?
        /// A withdrawn speculation running on to be kept.
        var keeping: Keeping?
        /// What the last speculation that answered said, and which it was.
        var answer: (generation: Int, said: Kept?)?

        /// How much of the segment kept text covers, or will once what runs to be kept answers.
        var covered: Int { max(kept?.samples ?? 0, keeping?.samples ?? 0, toKeep?.samples ?? 0) }
    }

    /// What the segment's end finds: the transcription to wait for, if one
    /// stands, when it was sent, and how many were started.
    struct Taken {
        var task: Task<Outcome, Never>?
        var startedAt: UInt64 = 0
        var started = 0
        /// With `task`: the kept text it was started with. Else what was kept.
        var kept: Kept?
        var keeping: Keeping?

        /// The text kept for the segment, once a speculation still running to be kept has answered.
        func settledKept() async -> Kept? {
            guard let keeping else { return kept }
            return await keeping.settled(after: kept)
        }

        /// Cancels what still runs for the segment.
        func cancel() {
            task?.cancel()
            keeping?.task.cancel()
        }
    }

    private let entries = Mutex<[UInt64: Entry]>([:])

    /// Starts `run` for segment `id` now; returns false when it is deferred.
    /// Only one transcription per segment is in flight: while one withdrawn
    /// (or running to be kept) has not answered, a new likely end waits for
    /// it. A speaker who pauses often would queue a backlog the segment's
    /// final waits behind: this one is deferred instead, and starts the
    /// moment that one answers (if the speaker has not gone on meanwhile).
    /// `samples`: how many of the segment's samples it transcribes. `run`
    /// gets the text kept for the segment when it starts.
    @discardableResult
    func start(_ id: UInt64, samples: Int, run: @escaping Run) -> Bool {
        entries.withLock { entries -> Bool in
            var entry = entries[id] ?? Entry()
            defer { entries[id] = entry }
            guard entry.started == 0 || (entry.answered.isSet && entry.toKeep == nil) else {
                entry.deferred = Pending(samples: samples, run: run)
                return false
            }
            launch(id, Pending(samples: samples, run: run), in: &entry)
            return true
        }
    }

    /// Starts `pending` as the entry's transcription (under the lock), with
    /// the text kept for the segment now.
    private func launch(_ id: UInt64, _ pending: Pending, in entry: inout Entry) {
        let answered = Flag()
        let generation = entry.started + 1
        let kept = entry.kept
        entry.task = Task {
            defer {
                answered.set()
                startDeferred(id)
            }
            let outcome = await pending.run(kept)
            settle(id, generation: generation, samples: pending.samples, outcome)
            return outcome
        }
        entry.samples = pending.samples
        entry.taskKept = kept
        entry.answered = answered
        entry.startedAt = MonotonicClock.nanoseconds()
        entry.started += 1
    }

    /// A speculation of `id` answered (the `generation`-th started): if it
    /// was withdrawn to be kept, its text is kept now; else what it said is
    /// remembered, for a withdrawal that comes after its answer.
    private func settle(_ id: UInt64, generation: Int, samples: Int, _ outcome: Outcome) {
        let said = Kept(outcome, samples: samples)
        entries.withLock { entries in
            guard var entry = entries[id] else { return }
            if entry.keeping?.generation == generation {
                if let said { entry.kept = said }
                entry.keeping = nil
            } else {
                entry.answer = (generation, said)
            }
            entries[id] = entry
        }
    }

    /// The transcription of `id` answered: a withdrawn likely end waiting
    /// to be kept starts now (to be kept), else a deferred one.
    private func startDeferred(_ id: UInt64) {
        entries.withLock { entries in
            guard var entry = entries[id], entry.answered.isSet else { return }
            defer { entries[id] = entry }
            if let toKeep = entry.toKeep {
                entry.toKeep = nil
                launch(id, toKeep, in: &entry)
                entry.keeping = entry.task.map { Keeping(task: $0, samples: toKeep.samples, generation: entry.started) }
                entry.task = nil
            } else if let deferred = entry.deferred {
                entry.deferred = nil
                launch(id, deferred, in: &entry)
            }
        }
    }

    /// The text kept for `id` so far.
    func kept(_ id: UInt64) -> Kept? { entries.withLock { $0[id]?.kept } }

    /// Whether the last speculation started for `id` has answered.
    func answered(_ id: UInt64) -> Bool { entries.withLock { $0[id].map { $0.started > 0 && $0.answered.isSet } ?? false } }

    /// The speaker went on: the transcription started (or deferred) for
    /// `id` is not wanted as the final. If it covers at least `keepAtLeast`
    /// samples more than the kept text does (0: never), it runs on (or
    /// starts when its turn comes) and its text is kept when it answers;
    /// else it is cancelled.
    func withdraw(_ id: UInt64, keepAtLeast: Int = 0) {
        let cancelled = entries.withLock { entries -> Task<Outcome, Never>? in
            guard var entry = entries[id] else { return nil }
            defer {
                entry.task = nil
                entry.deferred = nil
                entries[id] = entry
            }
            let keeps = { (samples: Int) in keepAtLeast > 0 && samples - entry.covered >= keepAtLeast }
            guard let task = entry.task else {
                if let deferred = entry.deferred, keeps(deferred.samples) { entry.toKeep = deferred }
                return nil
            }
            guard keeps(entry.samples) else { return task }
            if let answer = entry.answer, answer.generation == entry.started {
                // It answered before the speaker went on: keep what it said.
                if let said = answer.said { entry.kept = said }
            } else {
                entry.keeping = Keeping(task: task, samples: entry.samples, generation: entry.started)
            }
            return nil
        }
        cancelled?.cancel()
    }

    /// Whether a transcription of `id` stands (started or deferred, not withdrawn).
    func stands(_ id: UInt64) -> Bool { entries.withLock { $0[id].map { $0.task != nil || $0.deferred != nil } ?? false } }

    /// The segment ended: what was started for it (forgotten here). A
    /// withdrawn likely end still waiting to start to be kept is dropped.
    func take(_ id: UInt64) -> Taken {
        let entry = entries.withLock { $0.removeValue(forKey: id) } ?? Entry()
        // The final is the last speculation, which started after what was kept then.
        if entry.task != nil { entry.keeping?.task.cancel() }
        return Taken(task: entry.task, startedAt: entry.startedAt, started: entry.started,
                     kept: entry.task == nil ? entry.kept : entry.taskKept, keeping: entry.task == nil ? entry.keeping : nil)
    }

    /// A flush or a stop: nothing started is wanted.
    func cancelAll() {
        let tasks = entries.withLock { entries in
            defer { entries.removeAll() }
            return entries.values.flatMap { [$0.task, $0.keeping?.task].compactMap { $0 } }
        }
        for task in tasks { task.cancel() }
    }
}

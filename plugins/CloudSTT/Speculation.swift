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
final class Speculations: Sendable {
    typealias Outcome = FallbackChain.Outcome<Transcription>

    struct Entry {
        var task: Task<Outcome, Never>?
        /// When the transcription in `task` was sent (monotonic ns).
        var startedAt: UInt64 = 0
        /// How many were started for the segment, the withdrawn ones included.
        var started = 0
        /// Set when the last one started has answered (withdrawn or not).
        var answered = Flag()
        /// A likely end that came while a withdrawn one was still being
        /// transcribed: started as soon as that one answers, unless the
        /// speaker goes on first.
        var deferred: (@Sendable () async -> Outcome)?
    }

    /// What the segment's end finds: the transcription to wait for, if one
    /// still stands, and how many were started.
    struct Taken: Sendable {
        var task: Task<Outcome, Never>?
        var startedAt: UInt64 = 0
        var started = 0
    }

    private let entries = Mutex<[UInt64: Entry]>([:])

    /// Starts transcribing segment `id` as heard so far; false when one
    /// withdrawn before is still being transcribed. An engine that takes
    /// one request at a time cannot drop the one it is working on, so a
    /// speaker who pauses often would queue a backlog the segment's final
    /// waits behind: this one is deferred instead, and starts the moment
    /// that one answers (if the speaker has not gone on meanwhile).
    @discardableResult
    func start(_ id: UInt64, run: @escaping @Sendable () async -> Outcome) -> Bool {
        entries.withLock { entries -> Bool in
            var entry = entries[id] ?? Entry()
            guard entry.started == 0 || entry.answered.isSet else {
                entry.deferred = run
                entries[id] = entry
                return false
            }
            launch(id, run, in: &entry)
            entries[id] = entry
            return true
        }
    }

    /// Starts `run` as the entry's transcription (under the lock).
    private func launch(_ id: UInt64, _ run: @escaping @Sendable () async -> Outcome, in entry: inout Entry) {
        let answered = Flag()
        entry.task = Task {
            defer {
                answered.set()
                startDeferred(id)
            }
            return await run()
        }
        entry.answered = answered
        entry.deferred = nil
        entry.startedAt = MonotonicClock.nanoseconds()
        entry.started += 1
    }

    /// The transcription of `id` answered: a likely end deferred behind it starts now.
    private func startDeferred(_ id: UInt64) {
        entries.withLock { entries in
            guard var entry = entries[id], let run = entry.deferred, entry.answered.isSet else { return }
            launch(id, run, in: &entry)
            entries[id] = entry
        }
    }

    /// The speaker went on: the transcription started for `id` is not wanted.
    func withdraw(_ id: UInt64) {
        let task = entries.withLock { entries -> Task<Outcome, Never>? in
            defer {
                entries[id]?.task = nil
                entries[id]?.deferred = nil
            }
            return entries[id]?.task
        }
        task?.cancel()
    }

    /// Whether a transcription of `id` stands (started or deferred, not withdrawn).
    func stands(_ id: UInt64) -> Bool { entries.withLock { $0[id].map { $0.task != nil || $0.deferred != nil } ?? false } }

    /// The segment ended: what was started for it (forgotten here).
    func take(_ id: UInt64) -> Taken {
        let entry = entries.withLock { $0.removeValue(forKey: id) } ?? Entry()
        return Taken(task: entry.task, startedAt: entry.startedAt, started: entry.started)
    }

    /// A flush or a stop: nothing started is wanted.
    func cancelAll() {
        let tasks = entries.withLock { entries in
            defer { entries.removeAll() }
            return entries.values.compactMap(\.task)
        }
        for task in tasks { task.cancel() }
    }
}

import Foundation
import GstKit
import ParleyCore
import ParleySpeech
import Synchronization

/// A segment whose work began when it opened (`partials-every-ms`): the
/// streaming thread says how much audio it holds and, at last, how it
/// ended; the work waits for either.
final class OpenSegment: Sendable {
    enum Next: Sendable {
        /// The segment holds at least the samples asked for.
        case heard
        case ended(SpeechSegment, Speculations.Taken)
        /// A flush or a stop: nothing more is wanted.
        case abandoned
    }

    private struct State {
        var count = 0
        var ended: (SpeechSegment, Speculations.Taken)?
        var abandoned = false
        var waiting: (minimum: Int, continuation: CheckedContinuation<Next, Never>)?
    }

    let id: UInt64
    let start: UInt64
    let rate: Int
    private let state = Mutex(State())

    init(id: UInt64, start: UInt64, rate: Int) {
        self.id = id
        self.start = start
        self.rate = rate
    }

    /// The segment now holds `count` samples.
    func heard(_ count: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Next, Never>? in
            state.count = count
            guard let waiting = state.waiting, count >= waiting.minimum else { return nil }
            state.waiting = nil
            return waiting.continuation
        }
        waiter?.resume(returning: .heard)
    }

    func end(_ segment: SpeechSegment, speculation: Speculations.Taken) {
        resolve { $0.ended = (segment, speculation) }
    }

    func abandon() { resolve { $0.abandoned = true } }

    private func resolve(_ change: (inout State) -> Void) {
        let (waiter, next) = state.withLock { state -> (CheckedContinuation<Next, Never>?, Next) in
            change(&state)
            defer { state.waiting = nil }
            return (state.waiting?.continuation, Self.next(state))
        }
        waiter?.resume(returning: next)
    }

    private static func next(_ state: State) -> Next {
        if state.abandoned { return .abandoned }
        if let (segment, speculation) = state.ended { return .ended(segment, speculation) }
        return .heard
    }

    /// Once the segment holds `minimum` samples, or has ended, or is abandoned.
    func next(minimum: Int) async -> Next {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Next? in
                if state.abandoned || state.ended != nil || state.count >= minimum { return Self.next(state) }
                state.waiting = (minimum, continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

extension CloudSTTElement {
    /// Whether open segments get partial transcripts: partials-every-ms set
    /// and the chain's first provider the local Whisper engine (it costs CPU,
    /// not a request; pocketsphinx and remote providers are not asked).
    func givesPartials(_ current: Settings) -> Bool {
        current.partialsEveryMs > 0 && transcribers.withLock { $0?.members.first is WhisperTranscriber }
    }

    /// The work of a segment that just opened: while it is open, each time
    /// partials-every-ms more of it has been heard, it is transcribed as
    /// heard so far and the text goes out as a partial result (with the
    /// words two passes agreed on as `stable`); once it ends, its final, as
    /// any segment's. A pass runs only while the Whisper worker has nothing
    /// else to do, so a final (this segment's or a speculation) never waits
    /// behind more than the one pass already running; none starts while a
    /// likely end's transcription stands.
    func openedWork(_ open: OpenSegment) -> StageWork {
        StageWork(progressive: { [self] emit in
            var agreement = LocalAgreement()
            var passed = 0
            while true {
                // Turned off while the segment is open: only its end is waited for.
                let every = settings.withLock { $0.partialsEveryMs }
                let step = every > 0 ? max(1, every * open.rate / 1000) : Int.max - passed
                switch await open.next(minimum: passed + step) {
                case .abandoned:
                    return StageOutput()
                case .ended(let segment, let speculation):
                    return await finalResult(of: segment, speculation: speculation, emit: emit)
                case .heard:
                    guard let heard = segments.withLock({ $0.open }), heard.id == open.id else { continue }
                    passed = heard.samples.count
                    if let partial = await partial(of: heard, agreement: &agreement) { emit(partial) }
                }
            }
        }, placeholder: { [self] reason in
            // Dropped before it began: the segment's place holds a skipped result, as any segment's would.
            skipped(SpeechSegment(id: open.id, start: open.start, rate: open.rate), speculation: .init(), reason: reason)
        })
    }

    /// One pass over the segment as heard so far, as a partial result; nil
    /// when the engine is busy, a likely end's transcription stands (the
    /// final's, most likely), or the pass failed (a partial is only a preview).
    /// A pass stuck repeating a phrase to its end shows the phrase once
    /// (`RepetitionLoop`).
    func partial(of heard: SpeechSegment, agreement: inout LocalAgreement) async -> StageOutput? {
        let current = settings.withLock { $0 }
        guard !speculations.stands(heard.id), let whisper = transcribers.withLock({ $0?.members.first }) as? WhisperTranscriber,
              whisper.worker.isIdle else { return nil }
        var preview = request(for: heard, settings: current)
        preview.preview = true
        guard let transcription = try? await whisper.transcribe(preview, onPartial: nil),
              !transcription.text.isEmpty else { return nil }
        agreement.pass(RepetitionLoop.trimmed(transcription.text.split(separator: " ").map(String.init)))
        return Self.result(heard, text: agreement.text, status: .partial, language: Self.resultsLanguage(current),
                           counters: counters, stable: agreement.stable.joined(separator: " "))
    }
}


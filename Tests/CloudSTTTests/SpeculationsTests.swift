import Foundation
import Testing
import ParleyCore
import Synchronization
@testable import CloudSTT

/// Speculations keeps a withdrawn speculation's text when it covers
/// keep-speculated-ms of new audio, and cancels it otherwise.
@Suite struct SpeculationsTests {
    typealias Outcome = Speculations.Outcome

    /// A transcription that answers `text` once `gate` is opened (or at once without one).
    final class Run: Sendable {
        let text: String
        let gate: AsyncStream<Void>
        let open: AsyncStream<Void>.Continuation
        let heardKept = Mutex<Speculations.Kept??>(nil)

        init(_ text: String) {
            self.text = text
            (gate, open) = AsyncStream<Void>.makeStream()
        }

        func callAsFunction(_ kept: Speculations.Kept?) async -> Outcome {
            heardKept.withLock { $0 = .some(kept) }
            for await _ in gate { break }
            return .served(Transcription(text: text), by: 0, moves: [], disabled: [])
        }
    }

    func waitUntil(_ condition: () -> Bool) async {
        for _ in 0..<400 where !condition() { try? await Task.sleep(for: .milliseconds(5)) }
    }

    @Test func aWithdrawnSpeculationLongEnoughRunsOnAndItsTextIsKept() async {
        let speculations = Speculations()
        let first = Run("he was not an ill disposed young man")
        speculations.start(0, samples: 48_000) { await first($0) }
        speculations.withdraw(0, keepAtLeast: 48_000)
        #expect(speculations.kept(0) == nil, "not answered yet")
        first.open.yield(())
        await waitUntil { speculations.answered(0) }
        #expect(speculations.kept(0) == .init(text: "he was not an ill disposed young man", samples: 48_000))
        // The next likely end's transcription gets the kept text.
        let second = Run("unless to be rather cold hearted")
        #expect(speculations.start(0, samples: 80_000) { await second($0) })
        await waitUntil { second.heardKept.withLock { $0 != nil } }
        #expect(second.heardKept.withLock { $0 } == .some(.init(text: "he was not an ill disposed young man", samples: 48_000)))
        second.open.yield(())
        let taken = speculations.take(0)
        #expect(taken.kept?.samples == 48_000 && taken.started == 2)
    }

    @Test func aWithdrawnSpeculationTooShortToKeepIsCancelled() async {
        let speculations = Speculations()
        let first = Run("he was not")
        speculations.start(0, samples: 20_000) { await first($0) }
        speculations.withdraw(0, keepAtLeast: 48_000)
        first.open.yield(())
        await waitUntil { speculations.answered(0) }
        #expect(speculations.kept(0) == nil)
        let taken = speculations.take(0)
        #expect(taken.kept == nil && taken.keeping == nil && taken.task == nil)
    }

    @Test func onlyAudioBeyondTheKeptTextCountsTowardsKeepingMore() async {
        let speculations = Speculations()
        let first = Run("one")
        first.open.yield(())
        speculations.start(0, samples: 48_000) { await first($0) }
        await waitUntil { speculations.answered(0) }
        // Answered before the speaker went on: kept at once.
        speculations.withdraw(0, keepAtLeast: 48_000)
        #expect(speculations.kept(0)?.samples == 48_000)
        // 2 s beyond the kept 3 s: not enough to keep; cancelled.
        let second = Run("one two")
        second.open.yield(())
        speculations.start(0, samples: 80_000) { await second($0) }
        await waitUntil { speculations.answered(0) }
        speculations.withdraw(0, keepAtLeast: 48_000)
        #expect(speculations.kept(0)?.text == "one")
    }

    @Test func theSegmentsEndWaitsForASpeculationStillRunningToBeKept() async {
        let speculations = Speculations()
        let first = Run("he was not an ill disposed young man")
        speculations.start(0, samples: 48_000) { await first($0) }
        speculations.withdraw(0, keepAtLeast: 48_000)
        let taken = speculations.take(0)
        #expect(taken.task == nil && taken.keeping != nil)
        first.open.yield(())
        #expect(await taken.settledKept() == .init(text: "he was not an ill disposed young man", samples: 48_000))
    }

    /// A short pause first (1 s heard; its transcription cancelled, not
    /// yet answered), then a later likely end with `samples` heard, deferred
    /// behind it, both withdrawn with 2 s (at 16 kHz) to keep.
    func cancelledThenDeferred(_ samples: Int, _ text: String) -> (Speculations, short: Run, later: Run, deferred: Bool) {
        let speculations = Speculations()
        let short = Run("he was"), later = Run(text)
        speculations.start(0, samples: 16_000) { await short($0) }
        speculations.withdraw(0, keepAtLeast: 32_000)
        let started = speculations.start(0, samples: samples) { await later($0) }
        speculations.withdraw(0, keepAtLeast: 32_000)
        return (speculations, short, later, !started)
    }

    /// The deferred likely end covers 2.85 s: it starts once the first has answered, to be kept.
    @Test func aDeferredLikelyEndLongEnoughIsKeptOnceTheOneBeforeAnswers() async {
        let (speculations, short, long, deferred) = cancelledThenDeferred(45_600, "he was not an ill disposed young man")
        #expect(deferred, "deferred behind the cancelled one")
        #expect(long.heardKept.withLock { $0 } == nil, "not started while the first runs")
        short.open.yield(())
        await waitUntil { long.heardKept.withLock { $0 != nil } }
        #expect(long.heardKept.withLock { $0 } == .some(nil), "started, after no kept text")
        let taken = speculations.take(0)
        #expect(taken.task == nil && taken.keeping != nil && taken.started == 2)
        long.open.yield(())
        #expect(await taken.settledKept() == .init(text: "he was not an ill disposed young man", samples: 45_600))
    }

    /// The segment ends while a withdrawn long likely end still waits for
    /// its turn: it is dropped, and the final transcribes the whole.
    @Test func aLikelyEndStillWaitingToBeKeptWhenTheSegmentEndsIsDropped() async {
        let (speculations, short, long, _) = cancelledThenDeferred(45_600, "he was not an ill disposed young man")
        let taken = speculations.take(0)
        #expect(taken.task == nil && taken.keeping == nil && taken.kept == nil && taken.started == 1)
        short.open.yield(())
        try? await Task.sleep(for: .milliseconds(50))
        #expect(long.heardKept.withLock { $0 } == nil, "never started")
    }

    /// A deferred likely end under 2 s beyond the kept text is dropped on withdrawal.
    @Test func aDeferredLikelyEndTooShortToKeepIsDroppedOnWithdrawal() async {
        let (speculations, short, next, _) = cancelledThenDeferred(30_000, "he was not")
        short.open.yield(())
        await waitUntil { speculations.answered(0) }
        try? await Task.sleep(for: .milliseconds(50))
        #expect(next.heardKept.withLock { $0 } == nil, "never started")
        #expect(speculations.take(0).started == 1)
    }

    /// Whisper ends a piece cut mid-sentence with an ellipsis: a mark of the cut, dropped where the text joins.
    @Test func aKeptTextsTrailingEllipsisIsDroppedWhereItJoins() {
        #expect(CloudSTTElement.withoutTrailingEllipsis("unless to be rather...") == "unless to be rather")
        #expect(CloudSTTElement.withoutTrailingEllipsis("unless to be rather… ") == "unless to be rather")
        #expect(CloudSTTElement.withoutTrailingEllipsis("He was not an ill-disposed young man.") == "He was not an ill-disposed young man.")
        #expect(CloudSTTElement.withoutTrailingEllipsis("...") == "")
    }

    /// A prompt takes only a long kept text's last words (Whisper reads its last 224 tokens).
    @Test func aLongKeptTextPromptsWithItsLastWordsOnly() {
        let text = Array(repeating: "press one to mute", count: 100).joined(separator: " ")
        let tail = CloudSTTElement.promptTail(text)
        #expect(tail.count <= 900 && tail.count > 850, "\(tail.count) characters")
        #expect(text.hasSuffix(" " + tail), "cut at a word: \(tail.prefix(20))")
        #expect(CloudSTTElement.promptTail("he was not") == "he was not")
    }

    @Test func withoutKeepingEveryWithdrawnSpeculationIsCancelled() async {
        let speculations = Speculations()
        let first = Run("he was not an ill disposed young man")
        speculations.start(0, samples: 480_000) { await first($0) }
        speculations.withdraw(0)
        first.open.yield(())
        await waitUntil { speculations.answered(0) }
        #expect(speculations.kept(0) == nil)
    }
}

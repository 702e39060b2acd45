import ParleyCore
import ParleySpeech
import Testing
@testable import StreamTranslator

/// The state machine behind a reference, so `#expect` can call its mutating steps.
final class Assembly {
    var machine: SentenceAssembly
    init(maxHoldMs: Int) { machine = SentenceAssembly(maxHoldMs: maxHoldMs) }
    var held: SentenceAssembly.Held? { machine.held }
    var releasing: SentenceAssembly.Held? { machine.releasing }
    func receive(_ segment: TextSegment, text: String?, now: UInt64) -> SentenceAssembly.Step { machine.receive(segment, text: text, now: now) }
    func claim(_ generation: UInt64, now: UInt64) -> SentenceAssembly.Claim { machine.claim(generation, now: now) }
    func drop(_ generation: UInt64) -> Bool { machine.drop(generation) }
    func releaseHeld() { machine.releaseHeld() }
    func speechStarted(_ id: UInt64) { machine.speechStarted(id) }
}

/// Sentence assembly as streamtranslator's max-hold-ms runs it: texts joined
/// until a sentence ends, held at most the budget, never lost.
@Suite struct SentenceAssemblyTests {
    let ms: UInt64 = 1_000_000

    func segment(_ id: UInt64, _ text: String, start: UInt64 = 0, status: SpeechStatus = .final) -> TextSegment {
        TextSegment(meta: SpeechMeta(segmentID: id, status: status, language: "en"), pts: start * ms, duration: 1000 * ms,
                    bytes: Array(text.utf8))
    }

    func text(_ segment: TextSegment) -> String { String(decoding: segment.bytes, as: UTF8.self) }

    @Test func aWholeSentenceGoesOnAtOnce() {
        let assembly = Assembly(maxHoldMs: 4000)
        let whole = segment(0, "Please press one to mute yourself.")
        #expect(assembly.receive(whole, text: text(whole), now: 0) == .translate(whole))
        #expect(assembly.held == nil)
    }

    @Test func aSentenceCutByAPauseIsTranslatedWholeAsItsLastSegment() throws {
        let assembly = Assembly(maxHoldMs: 4000)
        let first = segment(3, "Please press 1 to mute or unmute yourself,", start: 0)
        let second = segment(4, "2 to lock or unlock the conference.", start: 2000)
        #expect(assembly.receive(first, text: text(first), now: 0) == .hold(generation: 1))
        #expect(assembly.claim(1, now: 100 * ms) == .wait, "within its budget the first waits")
        guard case .translate(let joined) = assembly.receive(second, text: text(second), now: 3000 * ms) else {
            Issue.record("the sentence's end did not release it")
            return
        }
        #expect(text(joined) == "Please press 1 to mute or unmute yourself, 2 to lock or unlock the conference.")
        #expect(joined.meta.segmentID == 4 && joined.meta.firstSegmentID == 3)
        #expect(joined.pts == 0 && joined.duration == 3000 * ms, "from the first's start to the last's end")
        #expect(assembly.claim(1, now: 3001 * ms) == .absorbed, "the held work has nothing to say")
    }

    @Test func theBudgetCountsFromTheFirstHeldTextAndIsNotReset() {
        let assembly = Assembly(maxHoldMs: 4000)
        let a = segment(0, "and then"), b = segment(1, "we went on", start: 1500), c = segment(2, "to the", start: 3000)
        #expect(assembly.receive(a, text: text(a), now: 0) == .hold(generation: 1))
        #expect(assembly.receive(b, text: text(b), now: 1500 * ms) == .hold(generation: 2))
        #expect(assembly.claim(1, now: 1500 * ms) == .absorbed)
        #expect(assembly.claim(2, now: 3999 * ms) == .wait)
        guard case .translate(let out) = assembly.claim(2, now: 4000 * ms) else {
            Issue.record("the budget ran out and nothing went")
            return
        }
        #expect(text(out) == "and then we went on" && out.meta.segmentID == 1 && out.meta.firstSegmentID == 0)
        // What comes after starts a new holding with a budget of its own.
        #expect(assembly.receive(c, text: text(c), now: 4100 * ms) == .hold(generation: 3))
        #expect(assembly.claim(3, now: 8000 * ms) == .wait)
    }

    @Test func aFailedResultOrEOSReleasesWhatIsHeldAndNothingJoinsItAfter() {
        let assembly = Assembly(maxHoldMs: 4000)
        let held = segment(0, "so what I mean is"), failed = segment(1, "", status: .failed)
        #expect(assembly.receive(held, text: text(held), now: 0) == .hold(generation: 1))
        #expect(assembly.receive(failed, text: nil, now: 10 * ms) == .translate(failed), "the failure passes on alone")
        let later = segment(2, "something else")
        #expect(assembly.receive(later, text: text(later), now: 20 * ms) == .hold(generation: 2))
        #expect(assembly.claim(1, now: 30 * ms) == .translate(held), "released, the held text goes alone, at once")
        assembly.releaseHeld()  // EOS
        #expect(assembly.claim(2, now: 40 * ms) == .translate(later))
        #expect(assembly.held == nil && assembly.releasing == nil)
    }

    @Test func aDroppedHeldWorkForgetsItsText() {
        let assembly = Assembly(maxHoldMs: 4000)
        let held = segment(0, "well")
        _ = assembly.receive(held, text: text(held), now: 0)
        #expect(assembly.drop(1))
        #expect(assembly.held == nil && !assembly.drop(1))
    }

    @Test func sentenceEndsFollowTheSplitter() {
        for ended in ["Hello there.", "Is it?", "Yes!\"", "终于。", "He said \"go.\""] {
            #expect(SentenceAssembly.endsSentence(ended), "\(ended)")
        }
        for open in ["press 1 to mute,", "and then", "I met Dr.", "so...", "well…", "", "Mr. J."] {
            #expect(!SentenceAssembly.endsSentence(open), "\(open)")
        }
    }
}

extension SentenceAssemblyTests {
    /// Behind a VAD: a held text goes once the speaker has stayed quiet a
    /// second past the VAD's decision, unless speech started again.
    @Test func aSpeakerWhoStaysQuietReleasesTheTextBeforeTheBudget() {
        let assembly = Assembly(maxHoldMs: 4000)
        var unfinished = segment(0, "for an operator press zero")
        unfinished.meta.stamps[.speechEnd] = 100 * ms
        assembly.speechStarted(0)
        #expect(assembly.receive(unfinished, text: text(unfinished), now: 500 * ms) == .hold(generation: 1))
        #expect(assembly.claim(1, now: 1099 * ms) == .wait)
        #expect(assembly.claim(1, now: 1100 * ms) == .translate(unfinished), "quiet for 1 s after the decision")

        var thinking = segment(1, "I would like to")
        thinking.meta.stamps[.speechEnd] = 2000 * ms
        #expect(assembly.receive(thinking, text: text(thinking), now: 2400 * ms) == .hold(generation: 2))
        assembly.speechStarted(2)  // the speaker goes on after a thinking pause
        #expect(assembly.claim(2, now: 3500 * ms) == .wait, "still held for the rest of the sentence")
        #expect(assembly.claim(2, now: 6400 * ms) == .translate(thinking), "until the budget runs out")
    }
}

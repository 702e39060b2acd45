import Dispatch
import Foundation
import Testing
import ApertiumEngine

/// A text longer than the pipes hold: apertium answers while it still
/// reads, so the request is written while the answer is read.
@Suite struct ApertiumLongTextTests {
    @Test func aTextLargerThanThePipesIsTranslatedAndTheEngineAnswersAfterIt() throws {
        let engine = try ApertiumTranslator(mode: "eng-spa", timeoutMs: 60_000)
        defer { engine.shutdown() }
        // About 400 KB, 80,000 words: written all at once first, both sides
        // blocked on full pipes for good (and the engine with them).
        let long = String(repeating: "The young man went home. ", count: 16_000)
        let done = DispatchSemaphore(value: 0)
        let outcome = LockedOutcome()
        Thread.detachNewThread {
            outcome.set(Result { try engine.translate(long) })
            done.signal()
        }
        try #require(done.wait(timeout: .now() + 120) == .success, "the translation never ended: writer and reader wait on each other")
        let translation = try outcome.get()
        #expect(translation.components(separatedBy: "El hombre joven fue en casa").count > 15_000, "\(translation.prefix(200))")
        #expect(try engine.translate("Good morning.") == "Buenos días.", "the engine still answers")
    }
}

/// A result handed from the translating thread.
private final class LockedOutcome: @unchecked Sendable {
    // @unchecked: set once before the semaphore is signalled, read after.
    private var result: Result<String, any Error> = .success("")
    func set(_ value: Result<String, any Error>) { result = value }
    func get() throws -> String { try result.get() }
}

import Foundation
import Parley
import ParleyCore
import ParleyTestSupport
import PipelineTestSupport
import Testing

/// Fallback chains in cloudstt and streamtranslator: real recorded speech,
/// real pocketsphinx and apertium behind providers that fail.
@Suite struct ProviderChainTests {
    let scratch = TestSupport.temporaryFolder()

    init() { Parley.register(testElements) }

    func events(_ launch: String) async throws -> (events: [PipelineEvent], error: PipelineError?) {
        let pipeline = try Pipeline(launch: launch)
        var events: [PipelineEvent] = []
        var failure: PipelineError?
        do { try await pipeline.run { events.append($0) } } catch { failure = error }
        return (events, failure)
    }

    func transcripts(_ events: [PipelineEvent]) -> [TextResult] {
        events.compactMap { if case .transcript(let result) = $0, result.status != .partial { result } else { nil } }
    }
    func fallbacks(_ events: [PipelineEvent]) -> [FallbackEvent] {
        events.compactMap { if case .fallback(let move) = $0 { move } else { nil } }
    }
    func warnings(_ events: [PipelineEvent]) -> [String] {
        events.compactMap { if case .warning(_, let message, _) = $0 { message } else { nil } }
    }

    @Test func transcriptsComeFromTheNextProviderWhileTheFirstFailsAndTheBreakerStopsAsking() async throws {
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let failing = try ScriptedHTTPServer([.respond(status: 503, body: #"{"error": {"message": "overloaded"}}"#)])
        defer { failing.stop() }
        // A cooldown no test run outlasts: with the default 30 s, a loaded
        // machine still transcribing the second segment locally let the third
        // through as the breaker's probe (three requests, not two).
        let (events, error) = try await events("""
            filesrc location=\(recording.path) ! wavparse ! vadsegmenter
            ! cloudstt provider=compatible,local base-url=\(failing.url)/v1 local-engine=pocketsphinx max-retries=0 breaker-failures=2
              breaker-cooldown-ms=3600000 ! fakesink
            """)
        #expect(error == nil, "\(String(describing: error))")
        let results = transcripts(events)
        #expect(results.map(\.segmentID) == [0, 1, 2])
        #expect(results.allSatisfy { $0.status == .final && $0.provider == "local (pocketsphinx)" }, "\(results)")
        #expect(results.allSatisfy { WordErrorRate.words($0.text).count >= 3 }, "speech was transcribed: \(results.map(\.text))")
        #expect(failing.requests.count == 2, "the breaker opened after two failures")
        let moves = fallbacks(events)
        #expect(moves.map(\.segmentID) == [0, 1, 2])
        #expect(moves.allSatisfy { $0.from == "compatible (127.0.0.1:\(failing.port))" && $0.to == "local (pocketsphinx)" })
        #expect(moves[0].reason.contains("server error 503: overloaded"))
        #expect(moves[1].reason.contains("circuit open for 3600.0 s"))
        #expect(moves[2].reason.hasPrefix("skipped: circuit open after 2 consecutive failures"))
    }

    @Test func aRejectedKeyInAChainIsSkippedForTheRestOfTheRunNotFatal() async throws {
        ProcessEnvironment.set("PARLEY_TEST_CHAIN_KEY", "sk-chain-secret-0123456789")
        let recording = try SpeechFixtures.threeUtterances(in: scratch)
        let rejecting = try ScriptedHTTPServer([.respond(status: 401, body: #"{"error": {"message": "Incorrect API key provided: sk-chain-secret-0123456789"}}"#)])
        defer { rejecting.stop() }
        let (events, error) = try await events("""
            filesrc location=\(recording.path) ! wavparse ! vadsegmenter
            ! cloudstt provider=openai,local base-url=\(rejecting.url)/v1 api-key-env=PARLEY_TEST_CHAIN_KEY local-engine=pocketsphinx ! fakesink
            """)
        #expect(error == nil, "\(String(describing: error))")
        #expect(transcripts(events).map(\.provider) == Array(repeating: "local (pocketsphinx)", count: 3))
        #expect(rejecting.requests.count == 1, "the rejected key is not sent again")
        #expect(warnings(events).contains { $0.contains("PARLEY_TEST_CHAIN_KEY") && $0.contains("rest of the run") }, "\(warnings(events))")
        let everything = events.map { "\($0)" }.joined()
        #expect(!everything.contains("sk-chain-secret"))
    }

    @Test func translationsComeFromApertiumWhenTheChatServerIsDown() async throws {
        let texts = ["The young man went home.", "Where is the station?", "Thank you very much.", "Good night."]
        let (events, error) = try await events("""
            parleytestsrc texts="\(texts.joined(separator: "|"))" ! streamtranslator provider=compatible,local \
            base-url=\(ScriptedHTTPServer.closedURL())/v1 source-language=en target-language=es cache=false max-in-flight=1 \
            breaker-cooldown-ms=3600000 ! fakesink
            """)
        #expect(error == nil, "\(String(describing: error))")
        let results = events.compactMap { if case .translation(let result) = $0 { result } else { nil } }
        #expect(results.map(\.segmentID) == [0, 1, 2, 3])
        #expect(results.allSatisfy { $0.provider == "local (apertium eng-spa)" }, "\(results.map(\.provider))")
        for (text, result) in zip(texts, results) {
            let cli = try await TestSupport.run("/usr/bin/apertium", ["-u", "eng-spa"], input: text)
            #expect(result.text == cli.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let moves = fallbacks(events)
        #expect(moves.count == 4 && moves.allSatisfy { $0.to == "local (apertium eng-spa)" })
        #expect(moves.prefix(3).allSatisfy { $0.reason.contains("network error") }, "\(moves.map(\.reason))")
        #expect(moves.last?.reason.hasPrefix("skipped: circuit open after 3") == true)
    }

    @Test func aChainIsDeclaredPositionByPosition() async throws {
        let (_, error) = try await events("""
            parleytestsrc texts="Hello." ! streamtranslator provider=deepl,local base-url=a,b,c target-language=es ! fakesink
            """)
        #expect("\(String(describing: error))".contains("base-url has 3 comma-separated entries but provider names 2"))
    }
}

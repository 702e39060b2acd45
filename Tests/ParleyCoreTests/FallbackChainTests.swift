import ParleyCore
import Synchronization
import Testing

@Suite struct ChainPositionTests {
    let known = ["local", "openai", "groq", "compatible"]

    @Test func listsArePositionByPositionAndEmptyEntriesKeepDefaults() throws {
        let chain = try ChainPosition.parse(provider: "openai, groq,local", baseURL: "", model: "gpt-4o-transcribe,,",
                                            apiKeyEnv: "MY_OPENAI,MY_GROQ", known: known)
        #expect(chain == [
            ChainPosition(provider: "openai", model: "gpt-4o-transcribe", apiKeyEnv: "MY_OPENAI"),
            ChainPosition(provider: "groq", apiKeyEnv: "MY_GROQ"),
            ChainPosition(provider: "local"),
        ])
    }

    @Test func aSingleProviderIsAChainOfOne() throws {
        let chain = try ChainPosition.parse(provider: "compatible", baseURL: "http://127.0.0.1:8080/v1", model: "", apiKeyEnv: "",
                                            known: known)
        #expect(chain == [ChainPosition(provider: "compatible", baseURL: "http://127.0.0.1:8080/v1")])
    }

    @Test func badChainsSayWhatAndWhere() {
        #expect(throws: ChainPosition.SpecError.self) { try ChainPosition.parse(provider: "", baseURL: "", model: "", apiKeyEnv: "", known: known) }
        do {
            _ = try ChainPosition.parse(provider: "openai,gorq", baseURL: "", model: "", apiKeyEnv: "", known: known)
            Issue.record("a typo was accepted")
        } catch {
            #expect(error.description.contains("\"gorq\" at position 2") && error.description.contains("did you mean groq?"))
        }
        do {
            _ = try ChainPosition.parse(provider: "openai", baseURL: "a,b", model: "", apiKeyEnv: "", known: known)
            Issue.record("two base URLs for one provider were accepted")
        } catch {
            #expect(error.description.contains("base-url has 2"))
        }
        do {
            _ = try ChainPosition.parse(provider: "openai,,local", baseURL: "", model: "", apiKeyEnv: "", known: known)
            Issue.record("an empty name was accepted")
        } catch {
            #expect(error.description.contains("empty name at position 2"))
        }
    }
}

@Suite struct CircuitBreakerTests {
    @Test func opensAfterThresholdFailuresThenOneProbeDecides() {
        var breaker = CircuitBreaker(threshold: 3, cooldown: 1000)
        #expect(breaker.permit(now: 0) == .request)
        let first = breaker.failed(now: 1), second = breaker.failed(now: 2), third = breaker.failed(now: 3)
        #expect(!first && !second)
        #expect(third, "the third consecutive failure opens it")
        #expect(breaker.permit(now: 500) == .skip(reopensIn: 503))
        #expect(breaker.permit(now: 1003) == .probe)
        #expect(breaker.permit(now: 1004) == .skip(reopensIn: nil), "one probe at a time")
        let reopened = breaker.failed(now: 1100)
        #expect(reopened, "a failed probe opens it again")
        #expect(breaker.permit(now: 1200) == .skip(reopensIn: 900))
        #expect(breaker.permit(now: 2100) == .probe)
        breaker.succeeded()
        #expect(breaker.state == .closed(failures: 0))
    }

    @Test func aSuccessResetsTheCount() {
        var breaker = CircuitBreaker(threshold: 2, cooldown: 10)
        breaker.failed(now: 0)
        breaker.succeeded()
        let opened = breaker.failed(now: 1)
        #expect(!opened, "failures must be consecutive")
    }

    @Test func aProbeWithoutVerdictGivesTheNextRequestItsTurn() {
        var breaker = CircuitBreaker(threshold: 1, cooldown: 10)
        breaker.failed(now: 0)
        #expect(breaker.permit(now: 10) == .probe)
        breaker.released(now: 11)
        #expect(breaker.permit(now: 11) == .probe)
    }
}

@Suite struct FallbackChainTests {
    /// A clock the test moves by hand.
    final class Clock: Sendable {
        let now = Atomic<UInt64>(0)
        func advance(ms: UInt64) { now.add(ms * 1_000_000, ordering: .relaxed) }
    }

    @Test func aFailureGoesToTheNextProviderAndTheMovesSayWhy() async {
        let chain = FallbackChain(names: ["a", "b", "c"], breakerFailures: 3, breakerCooldownMs: 1000)
        let outcome = await chain.run { index -> FallbackChain.Attempt<String> in
            switch index {
            case 0: .failed(.network("connection refused"), attempts: 1)
            case 1: .failed(.server(status: 503, message: "busy"), attempts: 3)
            default: .served("from c")
            }
        }
        guard case .served(let output, let by, let moves, _) = outcome else { Issue.record("not served"); return }
        #expect(output == "from c" && by == 2)
        #expect(moves.map(\.from) == ["a", "b"] && moves.map(\.to) == ["b", "c"])
        #expect(moves[1].reason.contains("after 3 attempts") && moves[1].reason.contains("503"))
    }

    @Test func anOpenBreakerSkipsTheProviderUntilAProbeSucceeds() async {
        let clock = Clock()
        let chain = FallbackChain(names: ["cloud", "local"], breakerFailures: 2, breakerCooldownMs: 1000,
                                  clock: { clock.now.load(ordering: .relaxed) })
        let cloudUp = Atomic<Bool>(false)
        let asked = Atomic<Int>(0)
        func once() async -> Int? {
            let outcome = await chain.run { index -> FallbackChain.Attempt<Int> in
                if index == 0 {
                    asked.add(1, ordering: .relaxed)
                    return cloudUp.load(ordering: .relaxed) ? .served(0) : .failed(.timeout("slow"), attempts: 1)
                }
                return .served(1)
            }
            if case .served(_, let by, _, _) = outcome { return by }
            return nil
        }
        #expect(await once() == 1 && asked.load(ordering: .relaxed) == 1)
        #expect(await once() == 1 && asked.load(ordering: .relaxed) == 2)
        #expect(await once() == 1 && asked.load(ordering: .relaxed) == 2, "open: not asked")
        clock.advance(ms: 1000)
        cloudUp.store(true, ordering: .relaxed)
        #expect(await once() == 0 && asked.load(ordering: .relaxed) == 3, "the probe succeeds")
        #expect(await once() == 0, "closed again")
    }

    @Test func aRejectedKeyIsNeverSentAgainAndTheLastProviderHasNoBreaker() async {
        let chain = FallbackChain(names: ["paid", "local"], breakerFailures: 1, breakerCooldownMs: 60_000)
        let paidAsked = Atomic<Int>(0), localAsked = Atomic<Int>(0)
        for round in 0..<3 {
            let outcome = await chain.run { index -> FallbackChain.Attempt<Int> in
                if index == 0 {
                    paidAsked.add(1, ordering: .relaxed)
                    return .failed(.unauthorized(message: "bad key"), attempts: 1)
                }
                localAsked.add(1, ordering: .relaxed)
                return .failed(.engine("no voice"), attempts: 1)
            }
            guard case .failed(let failure, let moves, let disabled) = outcome else { Issue.record("served"); return }
            #expect(disabled == (round == 0 ? [0] : []), "disabled once, when it happens")
            #expect(failure.everyProviderDisabled == false)
            #expect(moves.first?.reason.contains(round == 0 ? "rest of the run" : "rejected the key") == true)
            #expect(moves.last?.to == "", "nothing left after the last")
        }
        #expect(paidAsked.load(ordering: .relaxed) == 1)
        #expect(localAsked.load(ordering: .relaxed) == 3, "the last provider is tried every time")
    }

    @Test func audioAlreadyHeardEndsTheSegmentThere() async {
        let chain = FallbackChain(names: ["stream", "local"], breakerFailures: 3, breakerCooldownMs: 1000)
        let outcome = await chain.run { index -> FallbackChain.Attempt<Int> in
            index == 0 ? .failed(.network("reset"), attempts: 1, movesOn: false) : .served(1)
        }
        guard case .failed(let failure, let moves, _) = outcome else { Issue.record("fell back after audio"); return }
        #expect(failure.provider == 0 && moves.isEmpty)
    }
}

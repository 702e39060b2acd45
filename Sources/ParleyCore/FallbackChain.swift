import Synchronization

extension ProviderError {
    /// Whether the failure says something about the provider's health (and
    /// counts towards its circuit breaker), rather than about this input.
    public var blamesProvider: Bool {
        switch self {
        case .unauthorized, .rateLimited, .server, .timeout, .network, .decoding, .engine: true
        case .badRequest(let status, _): status == 402 || status == 456
        case .contentFiltered, .cancelled: false
        }
    }

    /// Whether no later request to the same provider can succeed in this run:
    /// a rejected key (401/403) or a used-up quota (402, DeepL's 456).
    public var disablesProvider: Bool {
        switch self {
        case .unauthorized: true
        case .badRequest(let status, _): status == 402 || status == 456
        default: false
        }
    }
}

/// A provider chain's health and order: a segment goes to the first
/// provider that may take it; when the request fails for good it goes to the
/// next, in order. Each provider but the last has a circuit breaker; a
/// provider that rejected its key, or whose quota is used up, is skipped for
/// the rest of the run. The last provider has no breaker: with nowhere else
/// to go, every segment tries it.
///
/// The chain decides who is asked; the element makes the requests (`run`'s
/// closure) and turns the outcome's moves into `parley/fallback` messages.
public final class FallbackChain: Sendable {
    public enum Attempt<Output: Sendable>: Sendable {
        case served(Output)
        /// `movesOn` false: the failure ends the segment here (say, audio
        /// already played, or the request was cancelled).
        case failed(ProviderError, attempts: Int, movesOn: Bool = true)
    }

    /// The chain went past `from` (to `to`, empty when none was left) because of `reason`.
    public struct Move: Sendable, Equatable {
        public var from: String
        public var to: String
        public var reason: String
    }

    public struct Failure: Error, Sendable {
        /// The last provider's error (or why none could be asked).
        public var error: ProviderError
        public var attempts: Int
        /// The last provider asked, if any.
        public var provider: Int?
        /// Why each provider did not serve, in chain order.
        public var reasons: [String]
        /// Every provider is disabled: nothing later can succeed.
        public var everyProviderDisabled: Bool
    }

    public enum Outcome<Output: Sendable>: Sendable {
        case served(Output, by: Int, moves: [Move], disabled: [Int])
        case failed(Failure, moves: [Move], disabled: [Int])
    }

    struct State {
        var breakers: [CircuitBreaker]
        var disabled: [String?]
    }

    public let names: [String]
    private let state: Mutex<State>
    private let clock: @Sendable () -> UInt64

    public init(names: [String], breakerFailures: Int, breakerCooldownMs: Int,
                clock: @escaping @Sendable () -> UInt64 = MonotonicClock.nanoseconds) {
        self.names = names
        self.clock = clock
        let breaker = CircuitBreaker(threshold: breakerFailures, cooldown: UInt64(max(0, breakerCooldownMs)) * 1_000_000)
        state = Mutex(State(breakers: Array(repeating: breaker, count: names.count),
                            disabled: Array(repeating: nil, count: names.count)))
    }

    public var breakers: [CircuitBreaker] { state.withLock { $0.breakers } }

    /// Why the provider at `index` is skipped for good, if it is.
    public func disabledReason(_ index: Int) -> String? { state.withLock { $0.disabled[index] } }

    /// Asks the providers in order until one serves.
    public func run<Output: Sendable>(_ attempt: (Int) async -> Attempt<Output>) async -> Outcome<Output> {
        var skipped: [(index: Int, reason: String)] = []
        var moves: [Move] = []
        var reasons: [String] = []
        var newlyDisabled: [Int] = []
        var last: (error: ProviderError, attempts: Int, index: Int)?
        // Moves waiting for the provider they lead to.
        func arrive(at index: Int?) {
            let to = index.map { names[$0] } ?? ""
            for (from, reason) in skipped { moves.append(Move(from: names[from], to: to, reason: reason)) }
            skipped.removeAll()
        }
        for index in names.indices {
            let isLast = index == names.count - 1
            let permit: CircuitBreaker.Permit = state.withLock { state in
                if state.disabled[index] != nil { return .skip(reopensIn: nil) }
                return isLast ? .request : state.breakers[index].permit(now: clock())
            }
            if case .skip(let reopensIn) = permit {
                let reason: String
                if let disabled = disabledReason(index) {
                    reason = "skipped: \(disabled)"
                } else if let reopensIn {
                    reason = "skipped: circuit open after \(state.withLock { $0.breakers[index].threshold }) consecutive failures; probed again in \(Self.seconds(reopensIn)) s"
                } else {
                    reason = "skipped: circuit open; a probe request is out"
                }
                skipped.append((index, reason))
                reasons.append("\(names[index]): \(reason)")
                continue
            }
            arrive(at: index)
            switch await attempt(index) {
            case .served(let output):
                state.withLock { $0.breakers[index].succeeded() }
                return .served(output, by: index, moves: moves, disabled: newlyDisabled)
            case .failed(let error, let attempts, let movesOn):
                let now = clock()
                var reason = "failed after \(counted(attempts, "attempt")): \(error)"
                state.withLock { state in
                    if error.disablesProvider {
                        state.disabled[index] = error.status == nil
                            ? "the provider rejected the key (\(error))" : "the provider's quota is used up (\(error))"
                        newlyDisabled.append(index)
                        reason += "; skipped for the rest of the run"
                    } else if error.blamesProvider && !isLast {
                        if state.breakers[index].failed(now: now) {
                            reason += "; circuit open for \(Self.seconds(state.breakers[index].cooldown)) s"
                        }
                    } else {
                        state.breakers[index].released(now: now)
                    }
                }
                last = (error, attempts, index)
                reasons.append("\(names[index]): \(reason)")
                if !movesOn || error == .cancelled {
                    return .failed(failure(last, reasons), moves: moves, disabled: newlyDisabled)
                }
                skipped.append((index, reason))
            }
        }
        arrive(at: nil)
        return .failed(failure(last, reasons), moves: moves, disabled: newlyDisabled)
    }

    private func failure(_ last: (error: ProviderError, attempts: Int, index: Int)?, _ reasons: [String]) -> Failure {
        let everyDisabled = state.withLock { $0.disabled.allSatisfy { $0 != nil } }
        return Failure(error: last?.error ?? .engine("no provider could take it: " + reasons.joined(separator: "; ")),
                       attempts: last?.attempts ?? 0, provider: last?.index, reasons: reasons,
                       everyProviderDisabled: everyDisabled)
    }

    static func seconds(_ nanoseconds: UInt64) -> String {
        String(Double(nanoseconds / 100_000_000) / 10)
    }
}

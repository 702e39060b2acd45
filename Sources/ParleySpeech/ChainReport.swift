import GstKit
import ParleyCore

/// What a provider element reports of its chain's outcome for one segment,
/// worded the same in every element: the `parley/fallback` messages of the
/// providers it went past, a warning (why the segment failed, and providers
/// the run gave up on, each said once, when it happens), and the error that
/// stops the stream when no provider will take requests any more.
///
/// The element keeps what is its own (its result buffer, its own message);
/// `remote` tells which chain positions are network providers, for naming
/// where a rejected key came from.
public struct ChainReport: Sendable {
    public var messages: [Structure]
    public var warning: ElementMessageText?
    public var error: ElementMessageText?
    /// Why a failed segment was not served, in one sentence (the warning without its segment number).
    public var reason: String?

    /// A segment a provider served: the moves before it, and any provider disabled on the way.
    public static func served(segmentID: UInt64, moves: [FallbackChain.Move], disabled: [Int], chain: FallbackChain,
                              remote: (Int) -> RemoteService?) -> ChainReport {
        ChainReport(messages: moves.map { FallbackMessage(segmentID: segmentID, $0).structure },
                    warning: disabledWarning(chain, disabled, remote: remote), error: nil, reason: nil)
    }

    /// A segment no provider served. `verb` says what the element does
    /// ("transcribe", "translate", "speak"); `reason` replaces the usual
    /// sentence when the element knows better (a stream that broke after
    /// its audio was heard).
    public static func failed(segmentID: UInt64, failure: FallbackChain.Failure, moves: [FallbackChain.Move], disabled: [Int],
                              chain: FallbackChain, verb: String, reason: String? = nil,
                              remote: (Int) -> RemoteService?) -> ChainReport {
        let sentence = reason ?? describe(failure, chain: chain, verb: verb)
        var warning = "segment \(segmentID): " + sentence
        var error: ElementMessageText?
        if failure.everyProviderDisabled && !disabled.isEmpty {
            error = .notAuthorized(refusal(failure, chain: chain, remote: remote), debug: failure.error.description)
        } else if let disabledWarning = disabledWarning(chain, disabled, remote: remote) {
            warning += "; " + disabledWarning.text
        }
        return ChainReport(messages: moves.map { FallbackMessage(segmentID: segmentID, $0).structure },
                           warning: ElementMessageText(warning), error: error, reason: sentence)
    }

    /// Why a segment was not served, in one sentence.
    static func describe(_ failure: FallbackChain.Failure, chain: FallbackChain, verb: String) -> String {
        if chain.names.count > 1 { return "no provider could \(verb) it: " + failure.reasons.joined(separator: "; ") }
        if failure.attempts == 0 { return "not sent: " + failure.reasons.joined(separator: "; ") }
        return "provider \(chain.names[0]) failed after \(counted(failure.attempts, "attempt")): \(failure.error)"
    }

    /// The error that stops the stream when no provider of the chain will take requests any more.
    static func refusal(_ failure: FallbackChain.Failure, chain: FallbackChain, remote: (Int) -> RemoteService?) -> String {
        guard chain.names.count == 1 else { return "every provider of the chain refused: " + failure.reasons.joined(separator: "; ") }
        if let status = failure.error.status, failure.error.disablesProvider {
            return "the \(chain.names[0]) quota is used up (\(status)): wait for it to renew, or use another provider"
        }
        if let service = remote(0) {
            return "\(service.keyVariable) was rejected by \(service.host): check the key, or use provider=local"
        }
        return "the provider refused: \(failure.error)"
    }

    /// What an element says, once, when a run disabled providers of its chain
    /// (naming each key's variable, never the key); nil when it disabled none.
    /// Like every element message, it does not name the element: the bus
    /// message's source does.
    static func disabledWarning(_ chain: FallbackChain, _ disabled: [Int], remote: (Int) -> RemoteService?) -> ElementMessageText? {
        guard !disabled.isEmpty else { return nil }
        let texts = disabled.map { index in
            let reason = chain.disabledReason(index) ?? "it failed"
            let key = remote(index).map { " (key from \($0.keyVariable))" } ?? ""
            return "provider \(chain.names[index])\(key) is skipped for the rest of the run: \(reason)"
        }
        return ElementMessageText(texts.joined(separator: "; "))
    }
}

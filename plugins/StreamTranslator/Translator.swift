import ApertiumEngine
import Foundation
import ParleyCore

/// One text to translate (or answer, in assistant mode).
struct TranslationRequest: Sendable {
    var text: String
    var sourceLanguage: String
    var targetLanguage: String
    /// The system prompt, its template already filled in.
    var systemPrompt: String
    /// Earlier (source, result) pairs, oldest first.
    var context: [(source: String, result: String)]
    var temperature: Double
}

/// Why a result is not a plain final: `length` and `content-filter` are
/// the provider's finish reasons, never silently truncated text.
enum FinishReason: String, Sendable {
    case stop, length, contentFilter = "content-filter"
}

struct Translation: Sendable {
    var text: String
    var finishReason: FinishReason = .stop
    var attempts = 1
    /// Monotonic time of the first token, when the provider streams.
    var firstTokenAt: UInt64?
}

/// A translation provider behind `streamtranslator`.
protocol TextTranslator: Sendable {
    /// Who serves requests, for messages ("local (apertium eng-spa)").
    var name: String { get }
    /// Translates; `onPartial` receives the text so far for providers that
    /// stream (an empty text retracts what a broken attempt streamed).
    func translate(_ request: TranslationRequest,
                   onPartial: @escaping @Sendable (String) -> Void) async throws(ProviderFailure) -> Translation
    func shutdown()
}

/// A translation provider reached over the network.
protocol RemoteTranslator: TextTranslator, RemoteProvider {}

/// Apertium from Debian, one long-lived process per pair (two for a route through a language in between).
/// `provider=local` when the text is already in the target language (an
/// English listener of an English speaker): the text itself, no process.
struct SameLanguageTranslator: TextTranslator {
    var name: String { "local (same language: not translated)" }

    func translate(_ request: TranslationRequest,
                   onPartial: @escaping @Sendable (String) -> Void) async throws(ProviderFailure) -> Translation {
        Translation(text: request.text)
    }

    func shutdown() {}
}

struct ApertiumTextTranslator: TextTranslator {
    let engine: ApertiumTranslator
    var name: String { "local (apertium \(engine.mode))" }

    func translate(_ request: TranslationRequest,
                   onPartial: @escaping @Sendable (String) -> Void) async throws(ProviderFailure) -> Translation {
        try await engine.translation(of: request.text)
    }

    func shutdown() { engine.shutdown() }
}

extension ApertiumTranslator {
    /// `text` translated, the blocking pipe read kept off Swift's small cooperative pool.
    func translation(of text: String) async throws(ProviderFailure) -> Translation {
        do throws(ApertiumError) {
            return Translation(text: try await OffPool.run { () throws(ApertiumError) in try self.translate(text) })
        } catch {
            throw ProviderFailure(.engine(error.description), attempts: 1)
        }
    }
}

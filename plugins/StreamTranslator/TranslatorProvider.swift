import ApertiumEngine
import Foundation
import GstKit
import ParleyCore

/// The providers `streamtranslator` can name in `provider` (alone or in a
/// chain): its provider table.
public enum TranslatorProvider: String, ProviderKind {
    case local, openai, compatible, deepl, google, libretranslate

    public var info: ProviderInfo {
        switch self {
        case .local:
            .local("Apertium from Debian, offline (one long-lived process per language pair; without a pair, two through Spanish or another language)")
        case .openai:
            .remote("openai", "OpenAI chat completions, streamed (OPENAI_API_KEY)",
                    baseURL: "https://api.openai.com/v1", key: "OPENAI_API_KEY", model: "gpt-4o-mini")
        case .compatible:
            .remote("compatible", "Any OpenAI-compatible chat completions server at base-url (parley serve, vLLM, ...)",
                    key: "OPENAI_API_KEY", keyRequired: false, model: "gpt-4o-mini")
        case .deepl:
            // Keys ending :fx go to the free host (RESTTranslator.deeplBaseURL).
            .remote("deepl", "DeepL /v2/translate (DEEPL_API_KEY; keys ending :fx use the free host)",
                    baseURL: "https://api.deepl.com", key: "DEEPL_API_KEY")
        case .google:
            .remote("google", "Google Cloud Translation v2 (GOOGLE_API_KEY)",
                    baseURL: "https://translation.googleapis.com", key: "GOOGLE_API_KEY")
        case .libretranslate:
            .remote("libretranslate", "LibreTranslate /translate at base-url (default https://libretranslate.com; LIBRETRANSLATE_API_KEY if the server wants one)",
                    baseURL: "https://libretranslate.com", key: "LIBRETRANSLATE_API_KEY", keyRequired: false)
        }
    }

    /// Builds one position of the chain for `sourceLanguage` (at NULL→READY,
    /// or on first use for a language auto-detection brings); what is missing is said here.
    func makeTranslator(_ position: ChainPosition, settings: StreamTranslatorElement.Settings, sourceLanguage: String,
                        environment: [String: String], trace: ProviderTrace? = nil) throws -> any TextTranslator {
        switch self {
        case .local where settings.mode == .assistant:
            // Answers are English; apertium says them in the target language where it can.
            let installed = ApertiumTranslator.installedModes()
            let mode = LanguageNames.primary(settings.targetLanguage) == "en" ? nil
                : ApertiumTranslator.mode(from: "en", to: settings.targetLanguage, installed: installed)
            return LocalAssistantTranslator(answerTranslator: try mode.map { try ApertiumTranslator(mode: $0, timeoutMs: settings.providers.timeoutMs) })
        case .local where LanguageTag.isSameLanguage(sourceLanguage, settings.targetLanguage):
            return SameLanguageTranslator()
        case .local:
            let installed = ApertiumTranslator.installedModes()
            guard let mode = ApertiumTranslator.mode(from: sourceLanguage, to: settings.targetLanguage, installed: installed) else {
                throw ApertiumError.noPair(from: sourceLanguage, to: settings.targetLanguage, installed: installed)
            }
            return ApertiumTextTranslator(engine: try ApertiumTranslator(mode: mode, timeoutMs: settings.providers.timeoutMs))
        case .openai, .compatible, .deepl, .google, .libretranslate:
            let service = try RemoteService.make(
                info, at: position, maxRetries: settings.providers.maxRetries, timeoutMs: settings.providers.timeoutMs,
                environment: environment, baseURLForKey: self == .deepl ? { RESTTranslator.deeplBaseURL(key: $0) } : nil, trace: trace)
            switch self {
            case .deepl: return RESTTranslator(vendor: .deepl, service: service)
            case .google: return RESTTranslator(vendor: .google, service: service)
            case .libretranslate: return RESTTranslator(vendor: .libretranslate, service: service)
            default:
                return ChatCompletionsTranslator(provider: rawValue, service: service,
                                                 model: model(position))
            }
        }
    }
}

/// What goes downstream (`emit`).
public enum TranslationEmit: Int, Sendable, CaseIterable {
    case final = 0, sentences = 1, partials = 2

    static let values = [
        EnumValue(final.rawValue, "final", "One buffer per segment: the whole translation"),
        EnumValue(sentences.rawValue, "sentences", "Each complete sentence as soon as the stream completes it (status final), so speech starts early"),
        EnumValue(partials.rawValue, "partials", "The text so far as it streams (status partial), then the final"),
    ]
}

/// `translate` or `assistant` (`mode`).
public enum TranslatorMode: Int, Sendable, CaseIterable {
    case translate = 0, assistant = 1

    static let values = [
        EnumValue(translate.rawValue, "translate", "Translate what was said"),
        EnumValue(assistant.rawValue, "assistant", "Answer what was said (a voice assistant), in the target language"),
    ]

    var defaultPrompt: String {
        switch self {
        case .translate:
            "Translate the user's text from {source} to {target}. Answer with the translation only: no preamble, no quotes, no notes."
        case .assistant:
            "You are a helpful voice assistant. Answer the user briefly in {target}, in plain sentences that read well aloud."
        }
    }
}

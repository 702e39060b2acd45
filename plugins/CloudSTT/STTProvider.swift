import Foundation
import GstKit
import ParleyCore
import PocketSphinxEngine

/// cloudstt's `provider` property.
public enum STTProvider: Int, Sendable {
    case local = 0, openai = 1, groq = 2, compatible = 3

    static let values = [
        EnumValue(0, "local", "pocketsphinx in-process (Debian's en-us model): no network, no key"),
        EnumValue(1, "openai", "OpenAI /v1/audio/transcriptions (whisper-1, gpt-4o-transcribe, gpt-4o-mini-transcribe)"),
        EnumValue(2, "groq", "Groq (whisper-large-v3, whisper-large-v3-turbo)"),
        EnumValue(3, "compatible", "Any OpenAI-compatible server at base-url (e.g. parley serve, faster-whisper servers)"),
    ]

    var nick: String { Self.values[rawValue].nick }

    var defaultBaseURL: String {
        switch self {
        case .openai: "https://api.openai.com/v1"
        case .groq: "https://api.groq.com/openai/v1"
        case .local, .compatible: ""
        }
    }

    var defaultModel: String { self == .groq ? "whisper-large-v3" : "whisper-1" }
    var defaultKeyVariable: String { self == .groq ? "GROQ_API_KEY" : "OPENAI_API_KEY" }

    struct SetupError: Error, CustomStringConvertible {
        var description: String
    }

    /// Builds the provider at NULL→READY; what is missing is said here, not mid-stream.
    func makeTranscriber(_ settings: CloudSTTElement.Settings, environment: [String: String]) throws -> any Transcriber {
        if self == .local {
            do {
                return LocalTranscriber(recognizer: try PocketSphinxRecognizer())
            } catch {
                throw SetupError(description: error.description)
            }
        }
        let baseURL = settings.baseURL.isEmpty ? defaultBaseURL : settings.baseURL
        guard !baseURL.isEmpty else {
            throw SetupError(description: "provider=compatible needs base-url, e.g. base-url=http://127.0.0.1:8080/v1")
        }
        let variable = settings.apiKeyEnv.isEmpty ? defaultKeyVariable : settings.apiKeyEnv
        let key = environment[variable] ?? ""
        if key.isEmpty && self != .compatible {
            throw SetupError(description: "\(variable) is not set: export your \(nick) API key in it, or use provider=local")
        }
        var request = RetryPolicy(maxAttempts: settings.maxRetries + 1)
        request.maxDelay = .milliseconds(Int64(settings.timeoutMs))
        return OpenAICompatibleTranscriber(provider: nick, baseURL: baseURL, apiKey: key,
                                           sender: RetryingSender(client: HTTPClient(), policy: request),
                                           timeout: .milliseconds(Int64(settings.timeoutMs)), keyVariable: variable)
    }
}

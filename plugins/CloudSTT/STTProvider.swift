import Foundation
import GstKit
import ParleyCore
import PocketSphinxEngine
import WhisperEngine

/// The providers `cloudstt` can name in `provider` (alone or in a chain):
/// its provider table.
public enum STTProvider: String, ProviderKind {
    case local, openai, groq, compatible, google

    public var info: ProviderInfo {
        switch self {
        case .local:
            .local("On this machine, no network, no key: Whisper-base in a worker process when prepared, else pocketsphinx (see local-engine)")
        case .openai:
            .remote("openai", "OpenAI /v1/audio/transcriptions (whisper-1, gpt-4o-transcribe, gpt-4o-mini-transcribe)",
                    baseURL: "https://api.openai.com/v1", key: "OPENAI_API_KEY", model: "whisper-1")
        case .groq:
            .remote("groq", "Groq (whisper-large-v3, whisper-large-v3-turbo)",
                    baseURL: "https://api.groq.com/openai/v1", key: "GROQ_API_KEY", model: "whisper-large-v3")
        case .compatible:
            .remote("compatible", "Any OpenAI-compatible server at base-url (e.g. parley serve, faster-whisper servers)",
                    key: "OPENAI_API_KEY", keyRequired: false, model: "whisper-1")
        case .google:
            .remote("google", "Google Cloud Speech-to-Text v1 speech:recognize (GOOGLE_API_KEY; language required: Google does not detect it)",
                    baseURL: "https://speech.googleapis.com", key: "GOOGLE_API_KEY")
        }
    }

    /// cloudstt's `local-engine` property: which engine provider=local runs.
    public enum LocalEngine: Int, Sendable {
        case auto = 0, whisper = 1, pocketsphinx = 2

        static let values = [
            EnumValue(0, "auto", "Whisper-base when scripts/setup has prepared it, else pocketsphinx"),
            EnumValue(1, "whisper", "Whisper-base (faster-whisper, int8) in a worker process; an error if not prepared"),
            EnumValue(2, "pocketsphinx", "pocketsphinx in-process (Debian's en-us model): English only, fast, less accurate"),
        ]
    }

    private func makeLocalTranscriber(_ settings: CloudSTTElement.Settings, environment: [String: String],
                                      onWorkerEvent: @escaping @Sendable (WhisperWorker.Event) -> Void) throws -> any Transcriber {
        let installation = WhisperInstallation.standard(environment: environment)
        let engine = settings.localEngine == .auto ? (installation.isPrepared ? .whisper : .pocketsphinx) : settings.localEngine
        if settings.task == .translate && engine != .whisper {
            throw ProviderSetupError("task=translate needs Whisper: pocketsphinx only transcribes English (\(installation.isPrepared ? "set local-engine=whisper or auto" : installation.notPreparedAdvice))")
        }
        switch engine {
        case .whisper:
            guard installation.isPrepared else { throw ProviderSetupError("local-engine=whisper: " + installation.notPreparedAdvice) }
            var options = WhisperWorker.Options()
            options.threads = settings.localThreads
            let worker = WhisperWorker(installation: installation, options: options, onEvent: onWorkerEvent)
            // Loading starts now, in the worker, while the pipeline prerolls; no need to wait here.
            Task { try? await worker.start() }
            return WhisperTranscriber(worker: worker)
        case .auto, .pocketsphinx:
            do {
                return PocketSphinxTranscriber(recognizer: try PocketSphinxRecognizer())
            } catch {
                throw ProviderSetupError(error.description)
            }
        }
    }

    /// Builds one position of the chain at NULL→READY; what is missing is said here, not mid-stream.
    func makeTranscriber(_ position: ChainPosition, settings: CloudSTTElement.Settings, environment: [String: String],
                         trace: ProviderTrace? = nil,
                         onWorkerEvent: @escaping @Sendable (WhisperWorker.Event) -> Void = { _ in }) throws -> any Transcriber {
        func service() throws(ProviderSetupError) -> RemoteService {
            try RemoteService.make(info, at: position, maxRetries: settings.providers.maxRetries,
                                   timeoutMs: settings.providers.timeoutMs, environment: environment, trace: trace)
        }
        switch self {
        case .local:
            return try makeLocalTranscriber(settings, environment: environment, onWorkerEvent: onWorkerEvent)
        case .google:
            guard settings.task == .transcribe else {
                throw ProviderSetupError("provider google does not translate speech (task=translate): use openai, groq, compatible or local")
            }
            guard !settings.language.isEmpty else {
                throw ProviderSetupError("provider google needs language (a BCP-47 tag, e.g. language=en-GB): Google's recognizer does not detect the language")
            }
            return GoogleTranscriber(service: try service(), model: position.model)
        case .openai, .groq, .compatible:
            let model = model(position)
            if settings.task == .translate && OpenAICompatibleTranscriber.streams(model) {
                throw ProviderSetupError("model \(model) does not translate speech (task=translate): OpenAI translates with whisper-1")
            }
            return OpenAICompatibleTranscriber(provider: rawValue, service: try service(), model: model)
        }
    }
}

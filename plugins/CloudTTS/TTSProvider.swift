import EspeakEngine
import Foundation
import GstKit
import ParleyCore
import PiperEngine

/// The providers `cloudtts` can name in `provider` (alone or in a chain):
/// its provider table.
public enum TTSProvider: String, ProviderKind {
    case local, openai, compatible, elevenlabs, google

    public var info: ProviderInfo {
        switch self {
        case .local:
            .local("Offline at 22050 Hz: Piper's English voice in a worker process when prepared (English only, see local-engine), espeak-ng in this process for every other language")
        case .openai:
            .remote("openai", "OpenAI /v1/audio/speech, streamed PCM at 24 kHz (OPENAI_API_KEY)",
                    baseURL: "https://api.openai.com/v1", key: "OPENAI_API_KEY", model: "gpt-4o-mini-tts")
        case .compatible:
            .remote("compatible", "Any OpenAI-compatible speech server at base-url (parley serve, ...)",
                    key: "OPENAI_API_KEY", keyRequired: false, model: "gpt-4o-mini-tts")
        case .elevenlabs:
            .remote("elevenlabs", "ElevenLabs /v1/text-to-speech/{voice}/stream, streamed PCM (ELEVENLABS_API_KEY)",
                    baseURL: "https://api.elevenlabs.io", key: "ELEVENLABS_API_KEY", model: "eleven_flash_v2_5")
        case .google:
            .remote("google", "Google Cloud Text-to-Speech text:synthesize, LINEAR16 (GOOGLE_API_KEY)",
                    baseURL: "https://texttospeech.googleapis.com", key: "GOOGLE_API_KEY")
        }
    }

    /// What provider=local speaks with (`local-engine`).
    public enum LocalEngine: Int, Sendable {
        case auto = 0, espeak = 1, piper = 2

        static let values = [
            EnumValue(0, "auto", "Piper's English voice for English when scripts/setup has prepared it and no voice is set, espeak-ng otherwise"),
            EnumValue(1, "espeak", "espeak-ng in this process, every language"),
            EnumValue(2, "piper", "Piper's en_US joe voice in a worker process for every result, whatever its language; an error if not prepared"),
        ]
    }

    /// ElevenLabs' default voice ("George"); OpenAI's is alloy; espeak-ng and Google choose by language.
    var defaultVoice: String {
        switch self {
        case .openai, .compatible: "alloy"
        case .elevenlabs: "JBFqnCBsd6RMkjVDRZzb"
        case .local, .google: ""
        }
    }

    /// The rates `sample-rate` may ask of this provider (nil: any in 8000–48000).
    var rates: [Int]? {
        switch self {
        case .local: [EspeakEngine.shared.sampleRate]
        case .openai, .compatible: [24_000]
        case .elevenlabs: [8000, 16_000, 22_050, 24_000, 44_100, 48_000]
        case .google: nil
        }
    }

    var defaultRate: Int { self == .local ? EspeakEngine.shared.sampleRate : 24_000 }

    /// Builds one position of the chain at NULL→READY; what is missing is said here.
    func makeSynthesizer(_ position: ChainPosition, settings: CloudTTSElement.Settings,
                         environment: [String: String], trace: ProviderTrace? = nil) throws -> any SpeechSynthesizer {
        let rate = settings.sampleRate == 0 ? defaultRate : settings.sampleRate
        if let rates, !rates.contains(rate) {
            throw ProviderSetupError("sample-rate=\(settings.sampleRate): \(rawValue) speaks at \(rates.map(String.init).joined(separator: ", ")) Hz only")
        }
        let voice = position.options["voice"].flatMap { $0.isEmpty ? nil : $0 } ?? defaultVoice
        let model = model(position)
        if self == .local {
            guard EspeakEngine.shared.isAvailable else { throw ProviderSetupError("espeak-ng could not start (is espeak-ng-data installed?)") }
            if !voice.isEmpty {
                do { try EspeakEngine.shared.checkVoice(voice) } catch { throw ProviderSetupError("voice: \(error.description)") }
            }
            let installation = PiperInstallation.standard(environment: environment)
            let piper: (voice: PiperVoice, everyLanguage: Bool)?
            switch settings.localEngine {
            case .espeak: piper = nil
            case .auto:
                // Both voices share one output rate (22050 Hz on Debian); a build of espeak-ng at another keeps espeak-ng alone.
                let fits = EspeakEngine.shared.sampleRate == PiperVoice.rate
                piper = voice.isEmpty && installation.isPrepared && fits ? (PiperVoice.shared(installation), false) : nil
            case .piper:
                guard installation.isPrepared else { throw ProviderSetupError("local-engine=piper: " + installation.notPreparedAdvice) }
                piper = (PiperVoice.shared(installation), true)
            }
            // The voice loads (about a second) while the pipeline prerolls.
            piper?.voice.preload()
            return LocalSynthesizer(voice: voice, piper: piper)
        }
        let service = try RemoteService.make(info, at: position, maxRetries: settings.providers.maxRetries,
                                             timeoutMs: settings.providers.timeoutMs, environment: environment, trace: trace)
        switch self {
        case .elevenlabs:
            return ElevenLabsSynthesizer(service: service, voice: voice, model: model, rate: rate)
        case .google:
            return GoogleSynthesizer(service: service, voice: voice, gender: settings.gender, rate: rate)
        default:
            return OpenAISpeechSynthesizer(provider: rawValue, service: service, voice: voice, model: model,
                                           sendsLanguage: self == .compatible)
        }
    }
}

/// Google's `ssmlGender` (`gender`): the voice to pick when no voice name is given.
public enum VoiceGender: Int, Sendable, CaseIterable {
    case unspecified = 0, female = 1, male = 2, neutral = 3

    static let values = [
        EnumValue(unspecified.rawValue, "unspecified", "The provider's choice"),
        EnumValue(female.rawValue, "female", "A female voice"),
        EnumValue(male.rawValue, "male", "A male voice"),
        EnumValue(neutral.rawValue, "neutral", "A gender-neutral voice"),
    ]

    var ssmlName: String {
        switch self {
        case .unspecified: "SSML_VOICE_GENDER_UNSPECIFIED"
        case .female: "FEMALE"
        case .male: "MALE"
        case .neutral: "NEUTRAL"
        }
    }
}

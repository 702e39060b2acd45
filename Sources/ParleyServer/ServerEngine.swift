// The engines `parley serve` can run behind /v1/audio/transcriptions.
import Foundation
import ParleyCore
import PocketSphinxEngine
import WhisperEngine

/// `parley serve --engine`.
public enum ServerEngineKind: String, Sendable, CaseIterable {
    case whisper, pocketsphinx

    /// Whisper when prepared: it is the one users accept.
    public static func automatic(_ installation: WhisperInstallation) -> ServerEngineKind {
        installation.isPrepared ? .whisper : .pocketsphinx
    }
}

/// What an engine heard in one file.
struct EngineTranscript: Sendable {
    struct Segment: Sendable {
        var start: Double
        var end: Double
        var text: String
        var noSpeechProbability: Double
        var averageLogProbability: Double
    }
    var text: String
    /// ISO-639-1.
    var language: String
    var duration: Double
    var segments: [Segment]
}

/// A failure, already in HTTP terms.
struct EngineFailure: Error, Sendable {
    enum Kind: Sendable { case badRequest(param: String?), busy, failed }
    var kind: Kind
    var message: String
}

protocol ServerEngine: Sendable {
    /// For /v1/models and the start-up line.
    var modelName: String { get }
    /// ISO 639 codes the engine recognizes (a request's `language` must be one).
    var languages: Set<String> { get }
    func transcribe(_ samples: [Int16], rate: Int, language: String, prompt: String,
                    temperature: Double) async throws(EngineFailure) -> EngineTranscript
    func stop()
}

struct PocketSphinxServerEngine: ServerEngine {
    let recognizer: PocketSphinxRecognizer
    var modelName: String { "pocketsphinx-en-us" }
    var languages: Set<String> { ["en"] }

    func transcribe(_ samples: [Int16], rate: Int, language: String, prompt: String,
                    temperature: Double) async throws(EngineFailure) -> EngineTranscript {
        if !language.isEmpty && language != "en" {
            throw EngineFailure(kind: .badRequest(param: "language"),
                                message: "The pocketsphinx engine knows English only, not '\(language)'; serve with --engine whisper.")
        }
        let audio = Resampler.resample(samples, from: rate, to: PocketSphinxRecognizer.sampleRate)
        let text: String
        do {
            text = try await recognizer.transcribe(audio)
        } catch {
            throw EngineFailure(kind: .failed, message: error.description)
        }
        let duration = Double(samples.count) / Double(max(1, rate))
        return EngineTranscript(text: text, language: "en", duration: duration, segments: [
            .init(start: 0, end: duration, text: text, noSpeechProbability: text.isEmpty ? 0.9 : 0, averageLogProbability: 0),
        ])
    }

    func stop() {}
}

struct WhisperServerEngine: ServerEngine {
    let worker: WhisperWorker
    var modelName: String { "whisper-base" }
    var languages: Set<String> { WhisperWorker.languages }

    func transcribe(_ samples: [Int16], rate: Int, language: String, prompt: String,
                    temperature: Double) async throws(EngineFailure) -> EngineTranscript {
        let audio = Resampler.resample(samples, from: rate, to: WhisperWorker.sampleRate)
        do throws(WhisperError) {
            let result = try await worker.transcribe(audio, language: language, prompt: prompt, temperature: temperature)
            return EngineTranscript(
                text: result.text, language: result.language, duration: result.duration,
                segments: result.segments.map {
                    .init(start: $0.start, end: $0.end, text: $0.text, noSpeechProbability: $0.no_speech_prob,
                          averageLogProbability: $0.avg_logprob)
                })
        } catch {
            if case .busy = error { throw EngineFailure(kind: .busy, message: error.description) }
            throw EngineFailure(kind: .failed, message: error.description)
        }
    }

    func stop() { worker.stop() }
}

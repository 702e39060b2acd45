// The engines `parley serve` can run behind /v1/audio/transcriptions and
// /v1/audio/translations.
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

/// One file to recognize, with the request's checked parameters.
struct EngineRequest: Sendable {
    var samples: [Int16]
    var rate: Int
    /// ISO 639 code; empty = detect it.
    var language = ""
    var prompt = ""
    var temperature = 0.0
    /// `.translate`: the speech in English, whatever language it is in.
    var task = WhisperTask.transcribe
    /// Each word's time as well (`timestamp_granularities[]=word`).
    var wordTimes = false
}

/// What an engine heard in one file.
struct EngineTranscript: Sendable {
    struct Word: Sendable {
        var word: String
        var start: Double
        var end: Double
    }
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
    /// Empty unless the request asked for word times.
    var words: [Word] = []
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
    func transcribe(_ request: EngineRequest) async throws(EngineFailure) -> EngineTranscript
    func stop()
}

struct PocketSphinxServerEngine: ServerEngine {
    let recognizer: PocketSphinxRecognizer
    var modelName: String { "pocketsphinx-en-us" }
    var languages: Set<String> { ["en"] }

    func transcribe(_ request: EngineRequest) async throws(EngineFailure) -> EngineTranscript {
        if !request.language.isEmpty && request.language != "en" {
            throw EngineFailure(kind: .badRequest(param: "language"),
                                message: "The pocketsphinx engine knows English only, not '\(request.language)'; serve with --engine whisper.")
        }
        if request.task == .translate {
            throw EngineFailure(kind: .badRequest(param: "model"),
                                message: "The pocketsphinx engine does not translate speech; serve with --engine whisper.")
        }
        if request.wordTimes {
            throw EngineFailure(kind: .badRequest(param: "timestamp_granularities"),
                                message: "The pocketsphinx engine gives no word times; serve with --engine whisper.")
        }
        let audio = Resampler.resample(request.samples, from: request.rate, to: PocketSphinxRecognizer.sampleRate)
        let text: String
        do {
            text = try await recognizer.transcribe(audio)
        } catch {
            throw EngineFailure(kind: .failed, message: error.description)
        }
        let duration = Double(request.samples.count) / Double(max(1, request.rate))
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

    func transcribe(_ request: EngineRequest) async throws(EngineFailure) -> EngineTranscript {
        let audio = Resampler.resample(request.samples, from: request.rate, to: WhisperWorker.sampleRate)
        do throws(WhisperError) {
            let result = try await worker.transcribe(audio, language: request.language, prompt: request.prompt,
                                                     temperature: request.temperature, task: request.task,
                                                     words: request.wordTimes)
            return EngineTranscript(
                text: result.text, language: result.language, duration: result.duration,
                segments: result.segments.map {
                    .init(start: $0.start, end: $0.end, text: $0.text, noSpeechProbability: $0.no_speech_prob,
                          averageLogProbability: $0.avg_logprob)
                },
                words: result.segments.flatMap { $0.words ?? [] }.map { .init(word: $0.word, start: $0.start, end: $0.end) })
        } catch {
            if case .busy = error { throw EngineFailure(kind: .busy, message: error.description) }
            throw EngineFailure(kind: .failed, message: error.description)
        }
    }

    func stop() { worker.stop() }
}

import Foundation
import ParleyCore
import PocketSphinxEngine
import WhisperEngine

/// One segment to transcribe, with the request options the APIs share.
struct TranscriptionRequest: Sendable {
    var samples: [Int16]
    var rate: Int
    /// The `language` property (BCP-47, "en-GB"); empty = detect.
    var languageTag: String
    var prompt: String
    var temperature: Double
    var responseFormat: String
    /// `.translate`: the speech in English (the language is then detected: languageTag is empty).
    var task = STTTask.transcribe
    /// "wav" or "flac".
    var uploadFormat = "wav"
    /// A partial pass (partials-every-ms): an engine may trade accuracy at
    /// the end of the audio for speed (Whisper-base: a 1 s window margin, not 8 s).
    var preview = false
}

extension TranscriptionRequest {
    /// The language subtag ("en"), ISO 639-1 as OpenAI and Whisper take it.
    var language: String { LanguageNames.primary(languageTag) }
}

struct Transcription: Sendable {
    var text: String
    /// What the provider detected, when it says.
    var language: String?
    /// The provider says there was no speech.
    var noSpeech = false
    var attempts = 1
    /// The provider's own processing time, when it says (openai-processing-ms).
    var providerProcessingMs: Double?
    /// CLOCK_MONOTONIC time the first byte of the answer arrived.
    var firstByteAt: UInt64?
}

/// Something that turns speech into text: the seam between cloudstt and providers.
protocol Transcriber: Sendable {
    /// For messages: "local (pocketsphinx)", "openai (api.openai.com)".
    var name: String { get }
    /// `onPartial` receives the text so far, for providers that stream it.
    func transcribe(_ request: TranscriptionRequest,
                    onPartial: (@Sendable (String) -> Void)?) async throws(ProviderFailure) -> Transcription
    /// Releases what the provider runs (a worker process) at READY→NULL.
    func shutdown()
}

extension Transcriber {
    func shutdown() {}
}

/// Whisper-base in its worker process (see WhisperEngine): the local engine
/// when scripts/setup has prepared it.
struct WhisperTranscriber: Transcriber {
    let worker: WhisperWorker
    var name: String { "local (whisper-base)" }

    func transcribe(_ request: TranscriptionRequest,
                    onPartial: (@Sendable (String) -> Void)?) async throws(ProviderFailure) -> Transcription {
        let audio = Resampler.resample(request.samples, from: request.rate, to: WhisperWorker.sampleRate)
        do throws(WhisperError) {
            let result = try await worker.transcribe(audio, language: request.language, prompt: request.prompt,
                                                     temperature: request.temperature,
                                                     task: request.task == .translate ? .translate : .transcribe,
                                                     margin: request.preview ? WhisperWorker.previewMargin : nil)
            let silent = result.isNoSpeech
            return Transcription(text: silent ? "" : result.text, language: result.language, noSpeech: silent,
                                 providerProcessingMs: result.processing_ms)
        } catch {
            throw ProviderFailure(.engine(error.description), attempts: 1)
        }
    }

    func shutdown() { worker.stop() }
}

/// pocketsphinx in this process.
struct PocketSphinxTranscriber: Transcriber {
    let recognizer: PocketSphinxRecognizer
    var name: String { "local (pocketsphinx)" }

    func transcribe(_ request: TranscriptionRequest,
                    onPartial: (@Sendable (String) -> Void)?) async throws(ProviderFailure) -> Transcription {
        let audio = Resampler.resample(request.samples, from: request.rate, to: PocketSphinxRecognizer.sampleRate)
        do {
            return Transcription(text: try await recognizer.transcribe(audio), language: "en")
        } catch {
            throw ProviderFailure(.engine(error.description), attempts: 1)
        }
    }
}

/// `POST {base}/audio/transcriptions` (or, task=translate,
/// `/audio/translations`), as OpenAI, Groq and compatible servers
/// (faster-whisper servers, `parley serve`) take it.
struct OpenAICompatibleTranscriber: Transcriber, RemoteProvider {
    var provider: String
    var service: RemoteService
    var model: String

    var name: String { "\(provider) (\(service.host))" }

    /// The APIs refuse files over 25 MB (413): a longer segment is split at a
    /// pause and its pieces transcribed in order, never sent to fail.
    static let uploadLimit = 25 * 1024 * 1024

    /// gpt-4o transcription models stream: `transcript.text.delta` events
    /// carry the text as it comes, `transcript.text.done` the final text.
    static func streams(_ model: String) -> Bool { model.hasPrefix("gpt-4o") }

    func transcribe(_ request: TranscriptionRequest,
                    onPartial: (@Sendable (String) -> Void)?) async throws(ProviderFailure) -> Transcription {
        let pieces = LongSegments.split(request.samples, bytesPerSample: request.uploadFormat == "flac" ? 1 : 2,
                                        limit: Self.uploadLimit - 64 * 1024)
        guard pieces.count > 1 else { return try await transcribeOne(request, onPartial: onPartial) }
        return try await LongSegments.transcribe(request, in: pieces) { part throws(ProviderFailure) in
            try await transcribeOne(part, onPartial: nil)
        }
    }

    private func transcribeOne(_ request: TranscriptionRequest,
                               onPartial: (@Sendable (String) -> Void)?) async throws(ProviderFailure) -> Transcription {
        let streaming = Self.streams(model) && request.task == .transcribe
        var form = MultipartForm()
        if request.uploadFormat == "flac", let flac = try? FLACCodec.encode(request.samples, rate: request.rate) {
            form.add(file: "file", filename: "segment.flac", contentType: "audio/flac", data: flac)
        } else {
            form.add(file: "file", filename: "segment.wav", contentType: "audio/wav",
                     data: WAVEncoder.encode(request.samples, rate: request.rate))
        }
        form.add(field: "model", value: model)
        if !request.language.isEmpty { form.add(field: "language", value: request.language) }
        if !request.prompt.isEmpty { form.add(field: "prompt", value: request.prompt) }
        form.add(field: "temperature", value: String(request.temperature))
        // Streaming models answer json events; verbose_json is not streamed.
        form.add(field: "response_format", value: streaming ? "json" : request.responseFormat)
        if streaming { form.add(field: "stream", value: "true") }
        var headers: [(name: String, value: String)] = [("Content-Type", form.contentType)]
        if !service.apiKey.isEmpty { headers.append(("Authorization", "Bearer \(service.apiKey)")) }
        let response: HTTPResponse, attempts: Int
        let path = request.task == .translate ? "/audio/translations" : "/audio/transcriptions"
        var http = HTTPRequest(method: "POST", url: service.root + path, headers: headers, body: form.data)
        http.timeout = service.timeout
        http.maxResponseBytes = HTTPRequest.maxTextResponseBytes
        var onChunk: (@Sendable (Data) -> Void)?
        if streaming {
            let stream = StreamState()
            onChunk = { chunk in
                // A retried request starts over: its partials supersede the broken ones.
                for text in stream.feed(chunk) { onPartial?(text) }
            }
        }
        let sentAt = MonotonicClock.nanoseconds()
        do throws(RetryingSender.Failure) {
            (response, attempts) = try await service.sender.send(http, onChunk: onChunk)
        } catch {
            throw ProviderFailure(ProviderError.scrubbed(error.error, key: service.apiKey), attempts: error.attempts)
        }
        var result = streaming
            ? try Self.parseStream(response, attempts: attempts)
            : try Self.parse(response, format: request.responseFormat, attempts: attempts)
        result.attempts = attempts
        result.providerProcessingMs = response.headers["openai-processing-ms"].flatMap(Double.init)
        // libcurl times the last attempt from its start; earlier attempts only make it later.
        result.firstByteAt = attempts == 1 ? sentAt + UInt64(response.timeToFirstByte * 1e9) : nil
        return result
    }

    /// The final text of an event stream (`transcript.text.done`, else the deltas).
    static func parseStream(_ response: HTTPResponse, attempts: Int) throws(ProviderFailure) -> Transcription {
        let stream = StreamState()
        _ = stream.feed(response.body + Data([10, 10]))
        guard let text = stream.finalText else {
            throw ProviderFailure(.decoding("the event stream had no transcript events"), attempts: attempts)
        }
        return Transcription(text: text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func parse(_ response: HTTPResponse, format: String, attempts: Int) throws(ProviderFailure) -> Transcription {
        if format == "text" {
            return Transcription(text: String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        struct Body: Decodable {
            struct Segment: Decodable { var no_speech_prob: Double? }
            var text: String
            var language: String?
            var segments: [Segment]?
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: response.body) else {
            throw ProviderFailure(.decoding("expected JSON with a \"text\" field"), attempts: attempts)
        }
        let text = body.text.trimmingCharacters(in: .whitespacesAndNewlines)
        // verbose_json: a segment the model itself thinks is not speech, with no text, is nothing.
        let silent = !(body.segments ?? []).isEmpty && (body.segments ?? []).allSatisfy { ($0.no_speech_prob ?? 0) > 0.6 }
        return Transcription(text: silent && text.isEmpty ? "" : text, language: body.language.map(LanguageNames.code),
                             noSpeech: silent && text.isEmpty)
    }
}

/// One streamed transcription's events: `transcript.text.delta` adds to
/// the text so far, `transcript.text.done` gives the final text.
final class StreamState: @unchecked Sendable {
    // @unchecked: touched only by the one thread feeding it (libcurl's, or the parser's caller).
    private var parser = SSEParser()
    private var text = ""
    private var done: String?

    /// The done event's text, else the deltas; nil if no transcript event came.
    var finalText: String? { done ?? (text.isEmpty ? nil : text) }

    /// The text so far after each delta in `chunk`.
    func feed(_ chunk: Data) -> [String] {
        var updates: [String] = []
        for event in parser.feed(chunk) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any] else { continue }
            switch object["type"] as? String {
            case "transcript.text.delta":
                text += object["delta"] as? String ?? ""
                updates.append(text)
            case "transcript.text.done":
                done = object["text"] as? String
            default:
                break
            }
        }
        return updates
    }
}

import Foundation
import ParleyCore

/// Google Cloud Speech-to-Text v1, synchronous: `POST {base}/v1/speech:recognize`
/// with the key in `X-Goog-Api-Key` (never in the URL) and one JSON document:
///
///     {"config": {"encoding": "LINEAR16", "sampleRateHertz": 16000, "languageCode": "en-US",
///                 "enableAutomaticPunctuation": true, "model": "latest_short"},
///      "audio": {"content": "<base64 of the samples>"}}
///
/// answered with `{"results": [{"alternatives": [{"transcript", "confidence"}]}]}`:
/// the first alternative of each result, joined. No
/// results is no speech. Google does not detect the language: `language` is
/// required (checked at start). The samples go as raw LINEAR16, or FLAC with
/// upload-format=flac. A segment over 55 s is cut at its quietest points
/// (synchronous recognition takes a minute at most). `prompt` and
/// `temperature` have no counterpart here and are not sent.
struct GoogleTranscriber: Transcriber, RemoteProvider {
    var service: RemoteService
    /// Google's recognition model (latest_long, latest_short, phone_call...); empty = Google's default.
    var model: String

    var name: String { "google (\(service.host))" }

    static let maxSeconds = 55

    func transcribe(_ request: TranscriptionRequest,
                    onPartial: (@Sendable (String) -> Void)?) async throws(ProviderFailure) -> Transcription {
        let pieces = LongSegments.split(request.samples, bytesPerSample: 2, limit: Self.maxSeconds * request.rate * 2)
        return try await LongSegments.transcribe(request, in: pieces) { part throws(ProviderFailure) in
            try await transcribeOne(part)
        }
    }

    /// The request's JSON.
    static func body(_ request: TranscriptionRequest, model: String) -> [String: Any] {
        var config: [String: Any] = [
            "sampleRateHertz": request.rate,
            // Google's form of the tag (en → en-US, zh-Hans → cmn-Hans-CN).
            "languageCode": LanguageTag(request.languageTag)?.googleRecognitionCode ?? request.languageTag,
            "enableAutomaticPunctuation": true,
        ]
        let audio: Data
        if request.uploadFormat == "flac", let flac = try? FLACCodec.encode(request.samples, rate: request.rate) {
            config["encoding"] = "FLAC"
            audio = flac
        } else {
            config["encoding"] = "LINEAR16"
            audio = request.samples.withUnsafeBytes { Data($0) }
        }
        if !model.isEmpty { config["model"] = model }
        return ["config": config, "audio": ["content": audio.base64EncodedString()]]
    }

    private func transcribeOne(_ request: TranscriptionRequest) async throws(ProviderFailure) -> Transcription {
        var http = HTTPRequest(method: "POST", url: service.root + "/v1/speech:recognize",
                               headers: [("Content-Type", "application/json"), ("X-Goog-Api-Key", service.apiKey)],
                               body: try? JSONSerialization.data(withJSONObject: Self.body(request, model: model)))
        http.timeout = service.timeout
        http.maxResponseBytes = HTTPRequest.maxTextResponseBytes
        let sentAt = MonotonicClock.nanoseconds()
        let response: HTTPResponse, attempts: Int
        do throws(RetryingSender.Failure) {
            (response, attempts) = try await service.sender.send(http)
        } catch {
            throw ProviderFailure(ProviderError.scrubbed(error.error, key: service.apiKey), attempts: error.attempts)
        }
        var result: Transcription
        do throws(ProviderError) { result = try Self.parse(response.body) } catch {
            throw ProviderFailure(ProviderError.scrubbed(error, key: service.apiKey), attempts: attempts)
        }
        result.attempts = attempts
        result.firstByteAt = attempts == 1 ? sentAt + UInt64(response.timeToFirstByte * 1e9) : nil
        return result
    }

    /// `{"results": [...]}` → the first alternative of each result, joined; none is no speech.
    static func parse(_ body: Data) throws(ProviderError) -> Transcription {
        struct Body: Decodable {
            struct Result: Decodable {
                struct Alternative: Decodable { var transcript: String? }
                var alternatives: [Alternative]?
            }
            var results: [Result]?
        }
        guard let decoded = try? JSONDecoder().decode(Body.self, from: body) else {
            throw .decoding("expected JSON with \"results\"")
        }
        let results = decoded.results ?? []
        let text = results.compactMap { $0.alternatives?.first?.transcript?.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }.joined(separator: " ")
        // The language is the one asked (Google does not detect it): results keep the `language` property's tag.
        return Transcription(text: text, noSpeech: text.isEmpty)
    }
}

import Foundation
import ParleyCore

/// ElevenLabs: `POST {base}/v1/text-to-speech/{voice_id}/stream?output_format=pcm_{rate}`
/// with `xi-api-key`, body `text`, `model_id` (and `language_code` for the
/// v2.5 models, `voice_settings.speed` when not 1). The answer is raw S16LE
/// PCM at the asked rate, read as a stream.
struct ElevenLabsSynthesizer: SpeechSynthesizer, RemoteProvider {
    var service: RemoteService
    var voice: String
    var model: String
    var rate: Int

    var name: String { "elevenlabs (\(service.host))" }

    func synthesize(_ request: SynthesisRequest,
                    onAudio: @escaping @Sendable ([Int16]) -> Bool) async throws(ProviderFailure) -> Int {
        var body: [String: Any] = ["text": request.text, "model_id": model]
        if !request.language.isEmpty && (model.hasSuffix("_v2_5") || model.hasSuffix("_v3")) {
            body["language_code"] = LanguageNames.primary(request.language)
        }
        // ElevenLabs takes 0.7–1.2.
        if request.speed != 1 { body["voice_settings"] = ["speed": min(1.2, max(0.7, request.speed))] }
        let voicePath = voice.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? voice
        let url = service.root + "/v1/text-to-speech/\(voicePath)/stream?output_format=pcm_\(rate)"
        let headers: [(name: String, value: String)] = [("Content-Type", "application/json"), ("Accept", "audio/pcm"),
                                                        ("xi-api-key", service.apiKey)]
        return try await service.streamPCM(HTTPRequest(method: "POST", url: url, headers: headers,
                                                       body: try? JSONSerialization.data(withJSONObject: body)),
                                           onAudio: onAudio)
    }
}

/// Google Cloud Text-to-Speech: `POST {base}/v1/text:synthesize` with the key
/// in `X-Goog-Api-Key` (never in the URL), `audioConfig.audioEncoding=LINEAR16`
/// at the asked `sampleRateHertz`, voice `languageCode` / `name` /
/// `ssmlGender`. The answer is one JSON document: `audioContent` is base64
/// of a WAV file, decoded once, its header stripped, and handed on in
/// 100 ms chunks (at the asked rate, resampled if the file says otherwise).
struct GoogleSynthesizer: SpeechSynthesizer, RemoteProvider {
    var service: RemoteService
    var voice: String
    var gender: VoiceGender
    var rate: Int

    var name: String { "google (\(service.host))" }

    /// The voice's own language ("es-ES-Neural2-A" → "es-ES"), else the
    /// text's in Google's form (`LanguageTag.googleSpeechCode`: en → en-US,
    /// zh-Hans → cmn-CN).
    func languageCode(_ language: String) -> String {
        let parts = voice.split(separator: "-")
        if parts.count >= 3 { return parts[0..<2].joined(separator: "-") }
        return LanguageTag(language.isEmpty ? "en" : language)?.googleSpeechCode ?? LanguageNames.primary(language)
    }

    func synthesize(_ request: SynthesisRequest,
                    onAudio: @escaping @Sendable ([Int16]) -> Bool) async throws(ProviderFailure) -> Int {
        var voiceFields: [String: Any] = ["languageCode": languageCode(request.language)]
        if !voice.isEmpty { voiceFields["name"] = voice }
        if gender != .unspecified { voiceFields["ssmlGender"] = gender.ssmlName }
        let body: [String: Any] = [
            "input": ["text": request.text],
            "voice": voiceFields,
            "audioConfig": ["audioEncoding": "LINEAR16", "sampleRateHertz": rate, "speakingRate": request.speed],
        ]
        var http = HTTPRequest(method: "POST", url: service.root + "/v1/text:synthesize",
                               headers: [("Content-Type", "application/json"), ("X-Goog-Api-Key", service.apiKey)],
                               body: try? JSONSerialization.data(withJSONObject: body))
        http.timeout = service.timeout
        let response: HTTPResponse, attempts: Int
        do throws(RetryingSender.Failure) {
            (response, attempts) = try await service.sender.send(http)
        } catch {
            throw ProviderFailure(ProviderError.scrubbed(error.error, key: service.apiKey), attempts: error.attempts)
        }
        let samples: [Int16]
        do throws(ProviderError) { samples = try Self.decode(response.body, rate: rate) } catch {
            throw ProviderFailure(ProviderError.scrubbed(error, key: service.apiKey), attempts: attempts)
        }
        let chunk = max(1, rate / 10)
        var offset = 0
        while offset < samples.count {
            let end = min(samples.count, offset + chunk)
            if !onAudio(Array(samples[offset..<end])) { break }
            offset = end
        }
        return attempts
    }

    /// `{"audioContent": base64 WAV}` → samples at `rate`.
    static func decode(_ body: Data, rate: Int) throws(ProviderError) -> [Int16] {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let content = object["audioContent"] as? String else {
            throw .decoding("expected JSON with \"audioContent\"")
        }
        guard let audio = Data(base64Encoded: content) else { throw .decoding("audioContent is not base64") }
        guard audio.prefix(4) == Data("RIFF".utf8) else {
            // Headerless LINEAR16: the asked rate.
            let bytes = [UInt8](audio)
            return stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
        }
        let decoded: (samples: [Int16], rate: Int)
        do { decoded = try WAVDecoder.decode(audio) } catch { throw .decoding("audioContent: \(error.description)") }
        guard decoded.rate != rate else { return decoded.samples }
        return Resampler.resample(decoded.samples, from: decoded.rate, to: rate)
    }
}

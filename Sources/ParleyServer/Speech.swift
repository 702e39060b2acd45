// `POST /v1/audio/speech` over espeak-ng, so a text-to-speech client (and
// the coming cloudtts element) runs against a real server on loopback.
//
// Request: OpenAI's JSON (`model`, `input` up to 4096 characters, `voice`,
// `response_format`, `speed` 0.25 to 4) plus an optional `language`
// (BCP-47, default en), an extension: espeak-ng speaks a language, OpenAI's
// voices speak any. `response_format` is OpenAI's: `mp3` (the default, as
// OpenAI's), `opus` (in Ogg), `aac` (ADTS), `flac`, `wav` (all of them the
// whole utterance at 24 kHz, once synthesized; mp3, opus and aac through
// GStreamer's encoders) or `pcm` (24 kHz S16LE mono, streamed chunk by chunk
// as espeak-ng synthesizes it: what cloudtts asks for); other formats answer 400. Voices map to espeak-ng variants of the
// language's voice: alloy (default variant), ash m3, ballad m5, coral f2,
// echo m1, fable m4, nova f3, onyx m7, sage f4, shimmer f5, verse m2.
import EspeakEngine
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore

enum SpeechEndpoint {
    static let outputRate = 24_000

    static func speak(_ request: Request, configuration: ServerConfiguration) async -> Response {
        let data: ByteBuffer
        switch await RequestBody.collect(request, upTo: 64 * 1024, within: configuration.requestTimeoutSeconds) {
        case .success(let collected): data = collected
        case .failure(.tooLarge): return TranscriptionHandler.error(.contentTooLarge, "The request is larger than 64 KiB.", type: "invalid_request_error")
        case .failure(.tooSlow): return TranscriptionHandler.tooSlow(configuration)
        }
        let body: SpeechRequest
        do {
            body = try SpeechRequest(json: Data(buffer: data))
        } catch {
            return TranscriptionHandler.error(.badRequest, error.message, type: "invalid_request_error", param: error.param)
        }
        let (input, format, variant, speed, language) = (body.input, body.format, body.variant, body.speed, body.language)
        // Checked before synthesis: a format this server cannot make is the client's mistake to hear at once.
        let encoder = configuration.encodeSpeech
        if format.needsEncoder && encoder == nil {
            return TranscriptionHandler.error(.badRequest, "response_format \(format.rawValue) needs GStreamer's encoders, which this server has not got: use pcm, wav or flac.",
                                              type: "invalid_request_error", param: "response_format")
        }
        guard let base = EspeakEngine.shared.voice(forLanguage: language) else {
            return TranscriptionHandler.error(.badRequest, "No espeak-ng voice speaks \"\(RequestParameters.shown(language))\".",
                                              type: "invalid_request_error", param: "language")
        }
        var parameters = SpeechParameters(voice: variant.isEmpty ? base : "\(base)+\(variant)",
                                          rate: min(450, max(80, Int((175 * speed).rounded()))),
                                          pitch: 50, volume: 100, wordGap: 0, ssml: false)
        parameters.language = language
        if configuration.delayMs > 0 || configuration.jitterMs > 0 {
            let jitter = configuration.jitterMs > 0 ? Int.random(in: -configuration.jitterMs...configuration.jitterMs) : 0
            try? await Task.sleep(for: .milliseconds(max(0, configuration.delayMs + jitter)))
        }
        let chunks = synthesize(input, parameters: parameters)
        guard format == .pcm else {
            var samples: [Int16] = []
            for await chunk in chunks {
                switch chunk {
                case .audio(let audio): samples += audio
                case .failed(let reason): return TranscriptionHandler.error(.internalServerError, "espeak-ng failed: \(reason)", type: "server_error")
                }
            }
            let file: Data
            switch format {
            case .wav: file = WAVEncoder.encode(samples, rate: outputRate)
            case .flac:
                guard let flac = try? FLACCodec.encode(samples, rate: outputRate) else {
                    return TranscriptionHandler.error(.internalServerError, "the FLAC encoder failed", type: "server_error")
                }
                file = flac
            default:
                guard let encoder else {
                    return TranscriptionHandler.error(.internalServerError, "no \(format.rawValue) encoder", type: "server_error")
                }
                switch await encoder(samples, outputRate, format) {
                case .success(let data): file = data
                case .failure(let failure): return TranscriptionHandler.error(.internalServerError, failure.reason, type: "server_error")
                }
            }
            return Response(status: .ok, headers: [.contentType: format.contentType], body: .init(byteBuffer: ByteBuffer(bytes: file)))
        }
        return Response(status: .ok, headers: [.contentType: format.contentType], body: ResponseBody { writer in
            for await chunk in chunks {
                guard case .audio(let audio) = chunk else { continue }
                try await writer.write(ByteBuffer(bytes: audio.withUnsafeBytes { Array($0) }))
            }
            try await writer.finish(nil)
        })
    }

    enum Chunk: Sendable {
        case audio([Int16])
        case failed(String)
    }

    /// espeak-ng's chunks at 24 kHz as they are made; synthesis runs on a
    /// thread of its own (it blocks under espeak-ng's global lock).
    static func synthesize(_ text: String, parameters: SpeechParameters) -> AsyncStream<Chunk> {
        AsyncStream { continuation in
            let rate = EspeakEngine.shared.sampleRate
            Thread {
                var resampler = Resampler(from: rate, to: outputRate)
                do throws(EspeakError) {
                    try EspeakEngine.shared.synthesize(text, parameters: parameters) { samples, _ in
                        let audio = resampler.process(samples)
                        if !audio.isEmpty { continuation.yield(.audio(audio)) }
                        return true
                    }
                    let tail = resampler.finish()
                    if !tail.isEmpty { continuation.yield(.audio(tail)) }
                } catch {
                    continuation.yield(.failed(error.description))
                }
                continuation.finish()
            }.start()
        }
    }
}

import EspeakEngine
import Foundation
import ParleyCore
import PiperEngine

/// One text to speak; the voice and model are the provider's (per chain position).
struct SynthesisRequest: Sendable {
    var text: String
    var language: String
    var speed: Double
    var instructions: String
}

/// A speech provider behind `cloudtts`: audio (S16LE mono at `rate`)
/// handed over chunk by chunk as it arrives; `onAudio` returns false to stop.
protocol SpeechSynthesizer: Sendable {
    var name: String { get }
    var rate: Int { get }
    func synthesize(_ request: SynthesisRequest,
                    onAudio: @escaping @Sendable ([Int16]) -> Bool) async throws(ProviderFailure) -> Int
    /// Who speaks `request` (a provider with several voices names the one it picks).
    func speakerName(for request: SynthesisRequest) -> String
}

extension SpeechSynthesizer {
    func speakerName(for request: SynthesisRequest) -> String { name }
}

/// The local voices: Piper's English voice where it is chosen (`piper`, see
/// TTSProvider's `local-engine`), espeak-ng in this process otherwise (the
/// engine espeaktts uses), its voice by language. Both speak at 22050 Hz.
struct LocalSynthesizer: SpeechSynthesizer {
    var voice: String
    /// Piper, and whether it speaks every language (local-engine=piper) or English only (auto).
    var piper: (voice: PiperVoice, everyLanguage: Bool)?
    var name: String { piper == nil ? "local (\(Self.espeakName))" : "local (\(Self.piperName), \(Self.espeakName))" }
    /// Piper's alone when it speaks every language; else espeak-ng's, which auto only pairs with Piper when they agree.
    var rate: Int { piper?.everyLanguage == true ? PiperVoice.rate : EspeakEngine.shared.sampleRate }
    static let espeakName = "espeak-ng"
    static let piperName = "piper en_US-joe"

    /// Whether Piper speaks this request: English (or no language said) under auto.
    func usesPiper(_ request: SynthesisRequest) -> Bool {
        guard let piper else { return false }
        return piper.everyLanguage || request.language.isEmpty || LanguageTag(request.language)?.language == "en"
    }

    func speakerName(for request: SynthesisRequest) -> String {
        "local (\(usesPiper(request) ? Self.piperName : Self.espeakName))"
    }

    func synthesize(_ request: SynthesisRequest,
                    onAudio: @escaping @Sendable ([Int16]) -> Bool) async throws(ProviderFailure) -> Int {
        if let piper, usesPiper(request) { return try await speakWithPiper(piper.voice, request, onAudio: onAudio) }
        var parameters = SpeechParameters(voice: voice, rate: min(EspeakEngine.rates.upperBound, max(EspeakEngine.rates.lowerBound, Int((175 * request.speed).rounded()))),
                                          pitch: 50, volume: 100, wordGap: 0, ssml: false)
        if !request.language.isEmpty { parameters.language = request.language }
        let chosen = parameters
        do throws(EspeakError) {
            // espeak-ng blocks under its global lock: off Swift's pool.
            try await OffPool.run { () throws(EspeakError) in
                try EspeakEngine.shared.synthesize(request.text, parameters: chosen) { samples, _ in
                    samples.isEmpty ? true : onAudio(Array(samples))
                }
            }
        } catch {
            throw ProviderFailure(.engine(error.description), attempts: 1)
        }
        return 1
    }

    /// Piper sentence by sentence, so the first sentence plays while the next is made.
    private func speakWithPiper(_ piper: PiperVoice, _ request: SynthesisRequest,
                                onAudio: @escaping @Sendable ([Int16]) -> Bool) async throws(ProviderFailure) -> Int {
        let (sentences, rest) = SentenceSplitter.split(request.text, final: true)
        let pieces = (sentences + [String(rest)]).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        var heard = false  // audio already left: another voice must not start the text again
        for piece in pieces {
            let samples: [Int16]
            do throws(PiperError) {
                samples = try await OffPool.run { () throws(PiperError) in try piper.speak(piece, speed: request.speed) }
            } catch {
                throw ProviderFailure(.engine(error.description), attempts: 1, afterAudio: heard)
            }
            guard !samples.isEmpty else { continue }
            heard = true
            if !onAudio(samples) { break }
        }
        return 1
    }
}

extension RemoteService {
    /// Sends `request` and streams its 2xx body as S16LE samples to
    /// `onAudio`. Retries (429 after the server's delay, 5xx, resets) only
    /// while no audio has left: a listener who heard the start must not hear
    /// it again. Returns the attempts made.
    func streamPCM(_ request: HTTPRequest, onAudio: @escaping @Sendable ([Int16]) -> Bool) async throws(ProviderFailure) -> Int {
        var http = request
        http.timeout = timeout
        let pcm = PCMStream(onAudio: onAudio)
        var attempt = 1
        while true {
            let error: ProviderError
            do {
                let response = try await sender.client.send(http) { pcm.feed($0) }
                if (200..<300).contains(response.status) { return attempt }
                error = ProviderError.from(status: response.status, headers: response.headers, body: response.body)
            } catch let failure {
                error = failure
            }
            let scrubbed = ProviderError.scrubbed(error, key: apiKey)
            if pcm.emitted { throw ProviderFailure(scrubbed, attempts: attempt, afterAudio: true) }
            guard let delay = sender.policy.delay(after: error, attempt: attempt) else {
                throw ProviderFailure(scrubbed, attempts: attempt)
            }
            do { try await Task.sleep(for: delay) } catch {
                throw ProviderFailure(.cancelled, attempts: attempt)
            }
            attempt += 1
        }
    }
}

/// `POST {base}/audio/speech` with `response_format=pcm` (24 kHz S16LE),
/// read as a stream, as OpenAI and `parley serve` take it.
struct OpenAISpeechSynthesizer: SpeechSynthesizer, RemoteProvider {
    var provider: String
    var service: RemoteService
    var voice: String
    var model: String
    /// Whether to send the request's language (an extension `parley serve` reads; OpenAI's voices need none).
    var sendsLanguage: Bool

    var name: String { "\(provider) (\(service.host))" }
    var rate: Int { 24_000 }

    func synthesize(_ request: SynthesisRequest,
                    onAudio: @escaping @Sendable ([Int16]) -> Bool) async throws(ProviderFailure) -> Int {
        var body: [String: Any] = ["model": model, "voice": voice, "input": request.text,
                                   "response_format": "pcm", "speed": request.speed]
        if !request.instructions.isEmpty { body["instructions"] = request.instructions }
        if sendsLanguage && !request.language.isEmpty { body["language"] = request.language }
        var headers: [(name: String, value: String)] = [("Content-Type", "application/json")]
        if !service.apiKey.isEmpty { headers.append(("Authorization", "Bearer \(service.apiKey)")) }
        return try await service.streamPCM(HTTPRequest(method: "POST", url: service.root + "/audio/speech", headers: headers,
                                                       body: try? JSONSerialization.data(withJSONObject: body)),
                                           onAudio: onAudio)
    }
}

/// Turns bytes as they arrive into whole 16-bit samples (a chunk may end
/// inside one).
final class PCMStream: @unchecked Sendable {
    // @unchecked: fed by libcurl's one thread, read after the transfer.
    private let onAudio: @Sendable ([Int16]) -> Bool
    private var carry: UInt8?
    private(set) var emitted = false
    private var stopped = false

    init(onAudio: @escaping @Sendable ([Int16]) -> Bool) { self.onAudio = onAudio }

    func feed(_ data: Data) {
        guard !stopped, !data.isEmpty else { return }
        var bytes = [UInt8](data)
        if let carry { bytes.insert(carry, at: 0) }
        carry = bytes.count % 2 == 1 ? bytes.removeLast() : nil
        guard !bytes.isEmpty else { return }
        let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.map { Int16(littleEndian: $0) }
        emitted = true
        if !onAudio(samples) { stopped = true }
    }
}

import ArgumentParser
import Foundation
import Parley
import ParleyCore
import ParleyServer

extension ServerEngineKind: ExpressibleByArgument {}

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the local speech engines over the OpenAI-compatible HTTP API.",
        discussion: """
            POST /v1/audio/transcriptions (multipart: file in any format OpenAI lists: flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav, webm, model, language, \
            response_format json | text | verbose_json | srt | vtt, timestamp_granularities[] segment | word \
            with verbose_json); POST /v1/audio/translations (the same without language: the speech in English, \
            Whisper only); POST /v1/chat/completions (the last \
            user message, streamed or not: translated by apertium when the model is apertium or the system prompt \
            asks for a translation, the pair from its first two language names, "from English to Spanish", or into \
            the one it names, else English to Spanish; otherwise answered by the offline assistant, model \
            parley-assistant: the time, the date, sums, what was said); POST /v1/audio/speech \
            (espeak-ng: response_format mp3 by default, opus, aac, flac, wav, or pcm at 24 kHz streamed; OpenAI's voice names; an extra \
            language field, default en); GET /v1/models and /v1/models/{model}; errors in OpenAI's envelope. \
            The speech-to-text engine is Whisper-base (a faster-whisper worker process, loaded before \
            the server listens) when scripts/setup has prepared it, else pocketsphinx; --engine chooses. \
            Prints "listening on http://HOST:PORT" once ready. --delay-ms and --jitter-ms \
            add a service delay to each answer: a measurement aid for benchmarks. \
            The key clients must send comes from the environment variable PARLEY_SERVE_API_KEY, \
            --api-key-file, or --api-key (which other users can read in ps: prefer the others). \
            Requests are bounded: --max-request-bytes, --max-audio-s of decoded audio at 4-192 kHz, \
            temperature 0-1, a language the engine knows; a connection idle for --idle-timeout-s is closed; a body declared over the size limit is refused from its header (413), a request whose head (from its first byte) or body takes over --request-timeout-s to arrive gets a 408, and past --max-requests at once a 503.
            """)

    @Option(help: "Address to bind; beyond loopback, --api-key is required.") var host = "127.0.0.1"
    @Option(help: "Port; 0 picks a free one.") var port = 8080
    @Option(help: "Require this key as a Bearer token (visible in ps: prefer PARLEY_SERVE_API_KEY or --api-key-file).") var apiKey: String?
    @Option(help: "Read the key clients must send from this file (its first line).") var apiKeyFile: String?
    @Option(name: .customLong("max-audio-s"), help: "Longest decoded audio a request may hold, in seconds.") var maxAudioSeconds = 1500.0
    @Option(name: .customLong("max-audio-seconds"), help: .hidden) var oldMaxAudioSeconds: Double?

    mutating func validate() throws {
        Deprecated.fold(oldMaxAudioSeconds, into: &maxAudioSeconds, "--max-audio-seconds", "--max-audio-s")
    }
    @Option(help: "Close a connection that sends nothing for this many seconds.") var idleTimeoutS = 30
    @Option(help: "Answer 408 to a request whose head (from its first byte) or body takes longer than this many seconds to arrive (a byte now and then resets the idle timeout, not this).")
    var requestTimeoutS = 120
    @Option(help: "Requests handled at once; more are answered 503 with Retry-After.") var maxRequests = 64
    @Option(help: "Largest request accepted, in bytes.") var maxRequestBytes = 25 * 1024 * 1024
    @Option(help: "Added to every answer, in ms (benchmarks).") var delayMs = 0
    @Option(help: "Random extra delay up to this, in ms (benchmarks).") var jitterMs = 0
    @Option(help: "whisper | pocketsphinx; default: whisper when prepared (scripts/setup), else pocketsphinx.")
    var engine: ServerEngineKind?
    @Option(help: "CPU threads of the Whisper worker; 0 = all cores.") var threads = 0

    func run() async throws {
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.apiKey = try apiKey ?? apiKeyFile.map(Self.readKey) ?? ProcessInfo.processInfo.environment["PARLEY_SERVE_API_KEY"]
        guard maxAudioSeconds.isFinite, maxAudioSeconds > 0 else { throw ValidationError("--max-audio-s must be above 0") }
        configuration.maxAudioSeconds = maxAudioSeconds
        guard idleTimeoutS > 0 else { throw ValidationError("--idle-timeout-s must be above 0") }
        configuration.idleTimeoutSeconds = Int64(idleTimeoutS)
        guard requestTimeoutS > 0 else { throw ValidationError("--request-timeout-s must be above 0") }
        configuration.requestTimeoutSeconds = Int64(requestTimeoutS)
        guard (1...10_000).contains(maxRequests) else { throw ValidationError("--max-requests takes 1 to 10000, got \(maxRequests)") }
        configuration.maxConcurrentRequests = maxRequests
        configuration.maxRequestBytes = maxRequestBytes
        configuration.delayMs = delayMs
        configuration.jitterMs = jitterMs
        configuration.engine = engine
        configuration.threads = threads
        // MP3, M4A, Ogg, WebM, µ-law/A-law/float WAV… through GStreamer; 16-bit WAV and FLAC stay the server's own.
        configuration.decodeOther = { data, maxSeconds in
            await OffPool.run { () -> UploadDecoding in
                do throws(AudioFileDecoder.Failure) {
                    return .audio(try AudioFileDecoder.decode(data: data, rate: UploadDecoding.rate, maxSeconds: maxSeconds))
                } catch {
                    switch error {
                    case .tooLong: return .tooLong
                    case .unreadable(let reason): return .unreadable(reason)
                    }
                }
            }
        }
        // /v1/audio/speech in mp3 (OpenAI's default), opus and aac, through GStreamer's encoders.
        configuration.encodeSpeech = { samples, rate, format in
            await OffPool.run { () -> Result<Data, SpeechEncodingFailure> in
                guard let encoded = AudioFileEncoder.Format(rawValue: format.rawValue) else {
                    return .failure(SpeechEncodingFailure("\(format.rawValue) is not encoded by GStreamer here"))
                }
                do throws(AudioFileEncoder.Failure) {
                    return .success(try AudioFileEncoder.encode(samples, rate: rate, as: encoded))
                } catch {
                    return .failure(SpeechEncodingFailure(error.description))
                }
            }
        }
        let host = host
        do {
            try await TranscriptionServer.run(configuration) { event in
                switch event {
                case .engineReady(let model, let detail):
                    printError("engine \(model) (\(detail))")
                case .listening(let port):
                    // Unbuffered, so a parent process reading the pipe sees it at once.
                    FileHandle.standardOutput.write(Data("listening on http://\(host):\(port)\n".utf8))
                case .engineTrouble(let message):
                    printError("warning: \(message)")
                }
            }
        } catch let error as ServerError {
            printError("error: \(error)")
            throw ExitCode(ExitStatus.invalidInput)
        }
    }

    static func readKey(_ path: String) throws -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let line = text.split(separator: "\n").first?.trimmingCharacters(in: .whitespaces), !line.isEmpty else {
            throw ValidationError("--api-key-file \(path): cannot read a key from it")
        }
        return line
    }
}

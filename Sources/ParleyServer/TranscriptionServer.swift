// `parley serve`: the local engines behind the OpenAI-compatible HTTP API,
// so the cloud code paths are tested end to end on loopback against a real
// server, and so anyone can self-host.
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore
import PocketSphinxEngine
import WhisperEngine

public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    /// 0 picks a free port; the bound one is reported to `onListening`.
    public var port = 8080
    /// When set, requests must carry `Authorization: Bearer <key>`.
    public var apiKey: String?
    public var maxRequestBytes = 25 * 1024 * 1024
    /// A measurement aid for benchmarks: added before each answer.
    public var delayMs = 0
    public var jitterMs = 0
    /// nil: Whisper when prepared, else pocketsphinx.
    public var engine: ServerEngineKind?
    public var whisper = WhisperInstallation.standard()
    /// The Whisper worker's threads; 0 = all cores.
    public var threads = 0
    /// Longest audio a request may hold once decoded (OpenAI's limit for its transcription models).
    public var maxAudioSeconds = 1500.0
    /// A connection that sends nothing for this long is closed (half-open clients).
    public var idleTimeoutSeconds: Int64 = 30
    /// The longest a request's body may take to arrive: a client that sends
    /// a byte every few seconds (each resets the idle timeout) is cut off.
    public var requestTimeoutSeconds: Int64 = 120
    /// Requests handled at once; more are answered 503 at once.
    public var maxConcurrentRequests = 64
    /// Decodes an upload that is neither WAV nor FLAC (MP3, M4A, Ogg, WebM…)
    /// to mono samples at `UploadDecoding.rate`, stopping past the limit:
    /// the `parley` executable sets it to GStreamer's decodebin. nil: WAV
    /// and FLAC only (415 for the rest).
    public var decodeOther: (@Sendable (_ data: Data, _ maxSeconds: Double) async -> UploadDecoding)?
    /// Encodes /v1/audio/speech's answer as mp3, opus or aac: the `parley`
    /// executable sets it to GStreamer's encoders. nil: those formats are a
    /// 400 (pcm, wav and flac are the server's own).
    public var encodeSpeech: (@Sendable (_ samples: [Int16], _ rate: Int, _ format: SpeechFormat) async -> Result<Data, SpeechEncodingFailure>)?
    public init() {}

    /// Sample rates an upload may have: telephony to studio.
    public static let acceptedRates = 4_000...192_000

    public var isLoopback: Bool { host == "127.0.0.1" || host == "localhost" || host == "::1" }
}

/// `response_format` of /v1/audio/speech: OpenAI's six, mp3 its default.
public enum SpeechFormat: String, Sendable, CaseIterable {
    case mp3, opus, aac, flac, wav, pcm

    /// Made by `ServerConfiguration.encodeSpeech`, not by the server itself.
    var needsEncoder: Bool { self == .mp3 || self == .opus || self == .aac }

    var contentType: String {
        switch self {
        case .mp3: "audio/mpeg"
        case .opus: "audio/ogg"
        case .aac: "audio/aac"
        case .flac: "audio/flac"
        case .wav: "audio/wav"
        case .pcm: "audio/pcm"
        }
    }
}

/// Why `ServerConfiguration.encodeSpeech` could not encode.
public struct SpeechEncodingFailure: Error, Sendable {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
}

/// What `ServerConfiguration.decodeOther` made of an upload.
public enum UploadDecoding: Sendable {
    public static let rate = 16_000
    case audio([Int16])
    case tooLong
    case unreadable(String)
}

public enum ServerError: Error, CustomStringConvertible {
    case keyRequired(String)
    case engine(String)
    /// The address could not be bound: in use by another program, or not this user's to take.
    case cannotListen(host: String, port: Int, errno: Int32)
    public var description: String {
        switch self {
        case .keyRequired(let host): "binding to \(host) exposes the server beyond this machine: set --api-key"
        case .engine(let why): why
        case .cannotListen(let host, let port, EADDRINUSE):
            "port \(port) on \(host) is already in use by another program: stop it, or pick another port with --port"
        case .cannotListen(let host, let port, EACCES):
            "port \(port) on \(host) needs privileges this user does not have: pick a port above 1023 with --port"
        case .cannotListen(let host, let port, EADDRNOTAVAIL):
            "\(host) is not an address of this machine, so port \(port) cannot be listened on there: pick one with --host"
        case .cannotListen(let host, let port, let code):
            "cannot listen on \(host) port \(port): \(String(cString: strerror(code)))"
        }
    }
}

/// What the server says about itself while it runs.
public enum ServerEvent: Sendable {
    case engineReady(model: String, detail: String)
    case listening(port: Int)
    case engineTrouble(String)
}

public enum TranscriptionServer {
    /// Runs until the process is stopped.
    public static func run(_ configuration: ServerConfiguration,
                           onEvent: @escaping @Sendable (ServerEvent) -> Void) async throws {
        guard configuration.isLoopback || !(configuration.apiKey ?? "").isEmpty else {
            throw ServerError.keyRequired(configuration.host)
        }
        let engine = try await startEngine(configuration, onEvent: onEvent)
        defer { engine.stop() }
        let handler = TranscriptionHandler(engine: engine, configuration: configuration)
        let router = Router()
        router.add(middleware: OpenAIErrorMiddleware())
        router.add(middleware: RequestLimitsMiddleware(configuration: configuration))
        router.get("/v1/models") { request, _ -> Response in
            if let denied = handler.authorize(request) { return denied }
            return handler.models()
        }
        router.get("/v1/models/:model") { request, context -> Response in
            if let denied = handler.authorize(request) { return denied }
            return handler.model(context.parameters.get("model") ?? "")
        }
        router.post("/v1/audio/transcriptions") { request, _ -> Response in
            if let denied = handler.authorize(request) { return denied }
            return await handler.recognize(request, task: .transcribe)
        }
        router.post("/v1/audio/translations") { request, _ -> Response in
            if let denied = handler.authorize(request) { return denied }
            return await handler.recognize(request, task: .translate)
        }
        let chat = ChatCompletionsHandler(configuration: configuration)
        defer { chat.stop() }
        router.post("/v1/chat/completions") { request, _ -> Response in
            if let denied = handler.authorize(request) { return denied }
            return await chat.complete(request)
        }
        router.post("/v1/audio/speech") { request, _ -> Response in
            if let denied = handler.authorize(request) { return denied }
            return await SpeechEndpoint.speak(request, configuration: configuration)
        }
        let app = Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: HeaderDeadline.handlers(limitSeconds: configuration.requestTimeoutSeconds),
                                                idleTimeout: .seconds(configuration.idleTimeoutSeconds))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port),
                                 serverName: "parley"),
            onServerRunning: { channel in onEvent(.listening(port: channel.localAddress?.port ?? configuration.port)) })
        do {
            try await app.runService()
        } catch let error as IOError where [EADDRINUSE, EACCES, EADDRNOTAVAIL].contains(error.errnoCode) {
            throw ServerError.cannotListen(host: configuration.host, port: configuration.port, errno: error.errnoCode)
        }
    }

    /// The engine, loaded before the server listens: a model that cannot
    /// load fails `parley serve` at once, not its first request.
    static func startEngine(_ configuration: ServerConfiguration,
                            onEvent: @escaping @Sendable (ServerEvent) -> Void) async throws -> any ServerEngine {
        switch configuration.engine ?? .automatic(configuration.whisper) {
        case .pocketsphinx:
            let engine = PocketSphinxServerEngine(recognizer: try PocketSphinxRecognizer())
            onEvent(.engineReady(model: engine.modelName, detail: "pocketsphinx, in-process, English"))
            return engine
        case .whisper:
            guard configuration.whisper.isPrepared else { throw ServerError.engine(configuration.whisper.notPreparedAdvice) }
            var options = WhisperWorker.Options()
            options.threads = configuration.threads
            let worker = WhisperWorker(installation: configuration.whisper, options: options) { event in
                if case .died(let pid, let reason, let restarting) = event {
                    onEvent(.engineTrouble("the Whisper worker (pid \(pid)) died: \(reason)" + (restarting ? "; restarting it" : "")))
                }
            }
            let seconds: Double
            do throws(WhisperError) {
                seconds = try await worker.start()
            } catch {
                throw ServerError.engine(error.description)
            }
            let engine = WhisperServerEngine(worker: worker)
            onEvent(.engineReady(model: engine.modelName, detail: String(
                format: "faster-whisper int8 in worker pid %d, loaded in %.1f s", worker.pid ?? 0, seconds)))
            return engine
        }
    }
}

/// The handlers, apart from the routing.
struct TranscriptionHandler: Sendable {
    let engine: any ServerEngine
    let configuration: ServerConfiguration

    /// The engine's own name, and the cloud names clients send, all served by it.
    var modelNames: [String] { [engine.modelName, "whisper-1", "whisper-large-v3", "whisper-large-v3-turbo"] }

    /// 408 for a body that took longer than the request timeout.
    static func tooSlow(_ configuration: ServerConfiguration) -> Response {
        error(.requestTimeout, "The request's body took longer than \(configuration.requestTimeoutSeconds) s to arrive.",
              type: "invalid_request_error")
    }

    func authorize(_ request: Request) -> Response? {
        guard let key = configuration.apiKey, !key.isEmpty else { return nil }
        if ConstantTime.equal(request.headers[.authorization] ?? "", "Bearer \(key)") { return nil }
        return Self.error(.unauthorized, "Incorrect API key provided.", type: "invalid_request_error", code: "invalid_api_key")
    }

    /// The names chat completions and speech are usually asked for: both
    /// take any name (apertium and espeak-ng answer every one), so these are
    /// what an OpenAI client lists, not a limit.
    static let chatModelNames = ["gpt-4o-mini", "gpt-4o", "apertium", ChatRequest.assistantModel]
    static let speechModelNames = ["tts-1", "tts-1-hd", "gpt-4o-mini-tts", "espeak-ng"]

    /// GET /v1/models: every model the routes answer for, speech to text first.
    var servedModelNames: [String] { modelNames + Self.chatModelNames + Self.speechModelNames }

    func models() -> Response {
        let data = servedModelNames.map(Self.modelObject)
        return Self.json(["object": "list", "data": data])
    }

    /// GET /v1/models/{model}: the model, or OpenAI's model_not_found.
    func model(_ name: String) -> Response {
        guard servedModelNames.contains(name) else {
            return Self.error(.notFound, "The model '\(RequestParameters.shown(name))' does not exist", type: "invalid_request_error",
                              param: "model", code: "model_not_found")
        }
        return Self.json(Self.modelObject(name))
    }

    /// `created` is required by OpenAI's clients' model type: the server has no date for a model, so 0.
    static func modelObject(_ name: String) -> [String: Any] {
        ["id": name, "object": "model", "created": 0, "owned_by": "parley"]
    }

    /// /v1/audio/transcriptions (`.transcribe`) and /v1/audio/translations
    /// (`.translate`: the speech in English, Whisper's own task; as OpenAI's,
    /// it takes no `language`, and one sent is not used). Every parameter is
    /// checked before the audio is decoded.
    func recognize(_ request: Request, task: WhisperTask) async -> Response {
        let body: ByteBuffer
        switch await RequestBody.collect(request, upTo: configuration.maxRequestBytes, within: configuration.requestTimeoutSeconds) {
        case .success(let collected): body = collected
        case .failure(.tooLarge):
            return Self.error(.contentTooLarge, "The request is larger than \(configuration.maxRequestBytes) bytes.",
                              type: "invalid_request_error")
        case .failure(.tooSlow):
            return Self.tooSlow(configuration)
        }
        let parts: [MultipartParser.Part]
        do {
            parts = try MultipartParser.parse(Data(buffer: body), contentType: request.headers[.contentType] ?? "")
        } catch {
            return Self.error(.badRequest, error.description, type: "invalid_request_error")
        }
        func field(_ name: String) -> String? { parts.first { $0.name == name }?.text }
        guard let file = parts.first(where: { $0.name == "file" }) else {
            return Self.error(.badRequest, "Missing required parameter: 'file'.", type: "invalid_request_error", param: "file")
        }
        guard let model = field("model"), !model.isEmpty else {
            return Self.error(.badRequest, "Missing required parameter: 'model'.", type: "invalid_request_error", param: "model")
        }
        guard modelNames.contains(model) else {
            return Self.error(.notFound, "The model '\(RequestParameters.shown(model))' does not exist.", type: "invalid_request_error",
                              param: "model", code: "model_not_found")
        }
        var language = ""
        if task == .transcribe {
            switch RequestParameters.language(field("language"), supported: engine.languages) {
            case .success(let value): language = value
            case .failure(let problem): return Self.error(.badRequest, problem.message, type: "invalid_request_error", param: "language")
            }
        }
        let format: TranscriptFormat
        switch RequestParameters.responseFormat(field("response_format")) {
        case .success(let value): format = value
        case .failure(let problem): return Self.error(.badRequest, problem.message, type: "invalid_request_error", param: "response_format")
        }
        let granularities: Set<TimestampGranularity>
        let asked = parts.filter { $0.name == "timestamp_granularities[]" || $0.name == "timestamp_granularities" }.compactMap(\.text)
        switch RequestParameters.timestampGranularities(asked, format: format) {
        case .success(let value): granularities = value
        case .failure(let problem):
            return Self.error(.badRequest, problem.message, type: "invalid_request_error", param: "timestamp_granularities")
        }
        let temperature: Double
        switch RequestParameters.temperature(field("temperature")) {
        case .success(let value): temperature = value
        case .failure(let problem): return Self.error(.badRequest, problem.message, type: "invalid_request_error", param: "temperature")
        }
        let audio: (samples: [Int16], rate: Int)
        let tooLong = Self.error(.badRequest, "The audio is longer than \(Int(configuration.maxAudioSeconds)) s, the longest accepted.",
                                 type: "invalid_request_error", param: "file")
        let formats = "send one of flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav, webm"
        let named = "file '\(RequestParameters.shown(file.filename ?? ""))'"
        // 16-bit PCM WAV and FLAC are read here, at once; anything else
        // (µ-law, A-law or float WAV, MP3, Ogg…) goes to GStreamer's decodebin.
        let isFLAC = file.data.starts(with: Data("fLaC".utf8))
        var readHere: (samples: [Int16], rate: Int)?
        var notReadHere = "not WAV or FLAC"
        if isFLAC || file.data.starts(with: Data("RIFF".utf8)) {
            do {
                readHere = isFLAC ? try FLACCodec.decode(file.data, maxSeconds: configuration.maxAudioSeconds) : try WAVDecoder.decode(file.data)
            } catch FLACCodec.CodecError.tooLong {
                return tooLong
            } catch {
                notReadHere = "\(error)"
            }
        }
        if let readHere {
            audio = readHere
        } else {
            guard let decodeOther = configuration.decodeOther else {
                return Self.error(.unsupportedMediaType, "\(notReadHere) (\(named)): only 16-bit PCM WAV and FLAC are read here",
                                  type: "invalid_request_error", param: "file")
            }
            switch await decodeOther(file.data, configuration.maxAudioSeconds) {
            case .audio(let samples): audio = (samples, UploadDecoding.rate)
            case .tooLong: return tooLong
            case .unreadable(let reason):
                return Self.error(.unsupportedMediaType, "The file could not be decoded (\(reason)) (\(named)); \(formats)",
                                  type: "invalid_request_error", param: "file")
            }
        }
        // Bounded before anything is resampled: a header that claims 1 Hz would make hours of 16 kHz audio.
        guard ServerConfiguration.acceptedRates.contains(audio.rate) else {
            return Self.error(.badRequest, "The audio's sample rate is \(audio.rate) Hz; send \(ServerConfiguration.acceptedRates.lowerBound)-\(ServerConfiguration.acceptedRates.upperBound) Hz.",
                              type: "invalid_request_error", param: "file")
        }
        let seconds = Double(audio.samples.count) / Double(audio.rate)
        guard seconds <= configuration.maxAudioSeconds else {
            return Self.error(.badRequest, "The audio is \(Int(seconds)) s long; the longest accepted is \(Int(configuration.maxAudioSeconds)) s.",
                              type: "invalid_request_error", param: "file")
        }
        if configuration.delayMs > 0 || configuration.jitterMs > 0 {
            let jitter = configuration.jitterMs > 0 ? Int.random(in: 0...configuration.jitterMs) : 0
            try? await Task.sleep(for: .milliseconds(configuration.delayMs + jitter))
        }
        let transcript: EngineTranscript
        let started = ContinuousClock.now
        do throws(EngineFailure) {
            transcript = try await engine.transcribe(EngineRequest(
                samples: audio.samples, rate: audio.rate, language: language, prompt: field("prompt") ?? "",
                temperature: temperature, task: task, wordTimes: granularities.contains(.word)))
        } catch {
            switch error.kind {
            case .badRequest(let param):
                return Self.error(.badRequest, error.message, type: "invalid_request_error", param: param)
            case .busy:
                var response = Self.error(.serviceUnavailable, error.message, type: "server_error")
                response.headers[.retryAfter] = "1"
                return response
            case .failed:
                return Self.error(.internalServerError, error.message, type: "server_error")
            }
        }
        let elapsed = ContinuousClock.now - started
        var response = TranscriptFormats.response(transcript, format: format, task: task, granularities: granularities)
        // As OpenAI does: the engine's own time, so clients can tell it from the network's.
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        response.headers[HTTPField.Name("openai-processing-ms")!] = String(milliseconds)
        return response
    }

    static func json(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// OpenAI's error envelope.
    static func error(_ status: HTTPResponse.Status, _ message: String, type: String,
                      param: String? = nil, code: String? = nil) -> Response {
        let detail: [String: Any] = ["message": message, "type": type,
                                     "param": param.map { $0 as Any } ?? NSNull(), "code": code.map { $0 as Any } ?? NSNull()]
        return json(["error": detail], status: status)
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import ParleyCore
import Synchronization

/// The transcription request's parameters, checked before the engine sees
/// them: a client's values are untrusted (an infinite temperature would hold
/// the only worker, a language that is not one would fail inside it).
enum RequestParameters {
    struct Problem: Error { var message: String }

    /// `language`: empty (detect), or a BCP-47 tag whose primary subtag the
    /// engine knows ("en", "en-US", "zh-Hans" → "zh"). Returns the code the engine takes.
    static func language(_ value: String?, supported: Set<String>) -> Result<String, Problem> {
        guard let value, !value.isEmpty else { return .success("") }
        let shown = String(value.prefix(40)).unicodeScalars.map { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" ? String($0) : "?" }.joined()
        guard value.count <= 35, value.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "_" }) else {
            return .failure(Problem(message: "Invalid language '\(shown)': send an ISO-639-1 code such as 'en' (or a BCP-47 tag such as 'en-US')."))
        }
        let primary = LanguageNames.primary(value)
        guard supported.contains(primary) else {
            return .failure(Problem(message: "Unsupported language '\(shown)': this engine knows \(supported.sorted().prefix(12).joined(separator: ", "))\(supported.count > 12 ? "…" : "")."))
        }
        return .success(primary)
    }

    /// `response_format`: one of OpenAI's five; json when absent.
    static func responseFormat(_ value: String?) -> Result<TranscriptFormat, Problem> {
        guard let value, !value.isEmpty else { return .success(.json) }
        guard let format = TranscriptFormat(rawValue: value) else {
            return .failure(Problem(message: "Invalid response_format '\(shown(value))': send one of \(TranscriptFormat.allCases.map(\.rawValue).joined(separator: ", "))."))
        }
        return .success(format)
    }

    /// `timestamp_granularities[]` (the OpenAI clients' name for the array;
    /// plain `timestamp_granularities` too): word, segment or both, with
    /// verbose_json only, as OpenAI takes them; segment when absent.
    static func timestampGranularities(_ values: [String], format: TranscriptFormat) -> Result<Set<TimestampGranularity>, Problem> {
        guard !values.isEmpty else { return .success([.segment]) }
        var granularities = Set<TimestampGranularity>()
        for value in values {
            guard let granularity = TimestampGranularity(rawValue: value) else {
                return .failure(Problem(message: "Invalid timestamp_granularities '\(shown(value))': send word, segment or both."))
            }
            granularities.insert(granularity)
        }
        guard format == .verbose_json else {
            return .failure(Problem(message: "timestamp_granularities needs response_format verbose_json, not \(format.rawValue)."))
        }
        return .success(granularities)
    }

    /// A client's value as an error message may quote it: one line (SafeText), 40 characters at most.
    static func shown(_ value: String) -> String {
        SafeText.excerpt(value, limit: 40)
    }

    /// `temperature`: a number from 0 to 1, as OpenAI takes it; 0 when absent.
    static func temperature(_ value: String?) -> Result<Double, Problem> {
        guard let value, !value.isEmpty else { return .success(0) }
        guard let number = Double(value.trimmingCharacters(in: .whitespaces)), number.isFinite, (0...1).contains(number) else {
            return .failure(Problem(message: "Invalid temperature '\(shown(value))': send a number from 0 to 1."))
        }
        return .success(number)
    }
}

/// Requests the router has no route for (an unknown path, a wrong method)
/// get OpenAI's error envelope, as every other answer does, not an empty body.
struct OpenAIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            let path = String(request.uri.path.prefix(200)).filter { !$0.isNewline && !($0.asciiValue.map { $0 < 32 } ?? false) }
            let message = error.status == .notFound || error.status == .methodNotAllowed
                ? "Unknown request URL: \(request.method) \(path). Please check the URL for typos."
                : (error.body ?? error.status.reasonPhrase)
            return TranscriptionHandler.error(error.status, message, type: "invalid_request_error")
        }
    }
}

/// What every request is held to before a handler runs: a body declared
/// larger than `maxRequestBytes` is refused from its header (413 at once,
/// not after the idle timeout), and no more than `maxConcurrentRequests`
/// are handled at once (503, with Retry-After). The time a body may take
/// to arrive is `RequestBody.collect`'s.
struct RequestLimitsMiddleware<Context: RequestContext>: RouterMiddleware {
    let configuration: ServerConfiguration
    let running = RunningRequests()

    func handle(_ request: Request, context: Context,
                next: (Request, Context) async throws -> Response) async throws -> Response {
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > configuration.maxRequestBytes {
            return TranscriptionHandler.error(.contentTooLarge, "The request declares \(declared) bytes; the largest accepted is \(configuration.maxRequestBytes).",
                                              type: "invalid_request_error")
        }
        guard running.enter(limit: configuration.maxConcurrentRequests) else {
            var busy = TranscriptionHandler.error(.serviceUnavailable,
                                                  "The server is handling \(configuration.maxConcurrentRequests) requests, its most at once; retry shortly.",
                                                  type: "server_error")
            busy.headers[.retryAfter] = "1"
            return busy
        }
        defer { running.leave() }
        return try await next(request, context)
    }
}

/// How many requests are being handled.
final class RunningRequests: Sendable {
    private let count = Mutex(0)

    func enter(limit: Int) -> Bool {
        count.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    func leave() { count.withLock { $0 -= 1 } }
}

/// A request's body, read whole within limits.
enum RequestBody {
    enum Problem: Error { case tooLarge, tooSlow }

    /// At most `limit` bytes, all arrived within `seconds`: a client that
    /// sends a byte now and then (each resets the idle timeout) is cut off.
    static func collect(_ request: Request, upTo limit: Int, within seconds: Int64) async -> Result<ByteBuffer, Problem> {
        let timedOut = Flag()
        let reading = Task { try await request.body.collect(upTo: limit) }
        let timer = Task {
            try await Task.sleep(for: .seconds(seconds))
            timedOut.set()
            reading.cancel()
        }
        defer { timer.cancel() }
        do {
            let body = try await reading.value
            return timedOut.isSet ? .failure(.tooSlow) : .success(body)
        } catch {
            return .failure(timedOut.isSet ? .tooSlow : .tooLarge)
        }
    }
}

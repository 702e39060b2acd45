import Foundation

/// What went wrong talking to a provider, in terms a user can act on.
/// Messages never contain API keys (see `Redaction`).
public enum ProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 401/403: the key is missing, wrong or not allowed. Never retried.
    case unauthorized(message: String)
    /// 429: wait (as the server said, when it did) and try again.
    case rateLimited(retryAfter: Duration?, message: String)
    /// 5xx.
    case server(status: Int, message: String)
    /// 4xx other than 401/403/429, including 413 (too large). Not retried.
    case badRequest(status: Int, message: String)
    case timeout(String)
    /// Connection refused or reset, DNS, TLS.
    case network(String)
    /// The response did not have the expected shape.
    case decoding(String)
    /// The provider refused the content.
    case contentFiltered(String)
    /// A local engine (pocketsphinx, the Whisper worker) failed on this input.
    case engine(String)
    case cancelled

    public var isRetryable: Bool {
        switch self {
        case .rateLimited, .server, .timeout, .network: true
        case .unauthorized, .badRequest, .decoding, .contentFiltered, .engine, .cancelled: false
        }
    }

    public var status: Int? {
        switch self {
        case .unauthorized: nil
        case .rateLimited: 429
        case .server(let status, _), .badRequest(let status, _): status
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .unauthorized(let message): "unauthorized: \(message)"
        case .rateLimited(let wait, let message):
            "rate limited" + (wait.map { " (retry after \($0))" } ?? "") + ": \(message)"
        case .server(let status, let message): "server error \(status): \(message)"
        case .badRequest(let status, let message): "bad request \(status): \(message)"
        case .timeout(let message): "timed out: \(message)"
        case .network(let message): "network error: \(message)"
        case .decoding(let message): "unexpected response: \(message)"
        case .contentFiltered(let message): "content filtered: \(message)"
        case .engine(let message): message
        case .cancelled: "cancelled"
        }
    }

    /// Classifies an HTTP error response. The provider's error envelope
    /// (`{"error": {"message", "type", "param", "code"}}`) supplies the message.
    public static func from(status: Int, headers: [String: String], body: Data) -> ProviderError {
        let message = Redaction.redact(errorMessage(body) ?? "HTTP status \(status)")
        switch status {
        case 401, 403: return .unauthorized(message: message)
        case 429: return .rateLimited(retryAfter: RetryPolicy.serverDelay(headers: headers), message: message)
        case 400 where message.localizedCaseInsensitiveContains("content") && message.localizedCaseInsensitiveContains("polic"):
            return .contentFiltered(message)
        case 500...599: return .server(status: status, message: message)
        default: return .badRequest(status: status, message: message)
        }
    }

    /// `error` with `key` taken out of every message it carries, whatever
    /// the case: a provider may echo the key in a 429's body, a content
    /// policy refusal, an error event inside a stream or a decoding error's
    /// excerpt, and each of those reaches warnings and session logs.
    public static func scrubbed(_ error: ProviderError, key: String) -> ProviderError {
        scrubbed(error, secrets: [key])
    }

    /// `error` with every one of `secrets` taken out of its message.
    public static func scrubbed(_ error: ProviderError, secrets: [String]) -> ProviderError {
        let secrets = secrets.filter { !$0.isEmpty }
        guard !secrets.isEmpty else { return error }
        func clean(_ message: String) -> String { Redaction.redact(message, secrets: secrets) }
        switch error {
        case .unauthorized(let message): return .unauthorized(message: clean(message))
        case .rateLimited(let wait, let message): return .rateLimited(retryAfter: wait, message: clean(message))
        case .badRequest(let status, let message): return .badRequest(status: status, message: clean(message))
        case .server(let status, let message): return .server(status: status, message: clean(message))
        case .timeout(let message): return .timeout(clean(message))
        case .network(let message): return .network(clean(message))
        case .decoding(let message): return .decoding(clean(message))
        case .contentFiltered(let message): return .contentFiltered(clean(message))
        case .engine(let message): return .engine(clean(message))
        case .cancelled: return .cancelled
        }
    }

    /// Error bodies as providers write them: OpenAI's and Google's
    /// `{"error": {"message", "code"}}` (code a string or a number),
    /// ElevenLabs' `{"detail": {"status", "message"}}` or `{"detail": "..."}`.
    static func errorMessage(_ body: Data) -> String? {
        if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] {
            if let error = object["error"] as? [String: Any], let message = error["message"] as? String {
                let code = error["code"] as? String ?? (error["code"] as? Int).map(String.init) ?? error["status"] as? String
                return bounded([message, code.map { "(\($0))" }].compactMap { $0 }.joined(separator: " "))
            }
            if let detail = object["detail"] as? [String: Any], let message = detail["message"] as? String {
                return bounded([message, (detail["status"] as? String).map { "(\($0))" }].compactMap { $0 }.joined(separator: " "))
            }
            if let detail = object["detail"] as? String { return bounded(detail) }
        }
        let text = bounded(String(decoding: body.prefix(1200), as: UTF8.self))
        return text.isEmpty ? nil : text
    }

    /// A provider's words are untrusted: one line (no line break, carriage
    /// return or terminal escape survives, `SafeText.oneLine`), 300 characters at most.
    private static func bounded(_ text: String) -> String {
        SafeText.excerpt(text, limit: 300)
    }
}

/// Keeps secrets out of everything Parley writes.
public enum Redaction {
    /// Replaces anything that looks like an API key or bearer token, and
    /// every secret given, however short (a short one only where it stands
    /// as a whole word, so "[redacted]" does not land inside other words).
    public static func redact(_ text: String, secrets: [String] = []) -> String {
        var result = text
        for secret in secrets where !secret.isEmpty {
            if secret.count >= 8 {
                result = result.replacingOccurrences(of: secret, with: "[redacted]")
            } else if let regex = try? NSRegularExpression(pattern: "(?<![A-Za-z0-9])" + NSRegularExpression.escapedPattern(for: secret) + "(?![A-Za-z0-9])") {
                result = regex.stringByReplacingMatches(in: result, range: NSRange(result.startIndex..., in: result), withTemplate: "[redacted]")
            }
        }
        // OpenAI (sk-...), Groq (gsk_...), and bearer tokens: everything up to
        // the next space or quote, base64's + / = included; and a URL's
        // credentials (http://user:password@host: a base-url written so).
        let patterns = [(#"\b(sk|gsk|xai)[-_][A-Za-z0-9_\-]{8,}"#, "[redacted]"), (#"(?i)(bearer\s+)[^\s"',;]+"#, "$1[redacted]"),
                        (#"(?i)\b([a-z][a-z0-9+.\-]*://)[^/@\s"']+@"#, "$1[redacted]@")]
        for (pattern, template) in patterns {
            if let regex = try? NSRegularExpression(pattern: pattern) {
                let range = NSRange(result.startIndex..., in: result)
                result = regex.stringByReplacingMatches(in: result, range: range, withTemplate: template)
            }
        }
        return result
    }
}

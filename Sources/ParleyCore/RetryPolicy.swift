import Foundation

/// When and how long to wait before trying a request again: exponential
/// backoff with full jitter, bounded attempts, and the server's own word
/// (`Retry-After`, `x-ratelimit-reset-*`) when it gives one.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    public init(maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(20)) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The wait before attempt `attempt + 1` after `error` on attempt
    /// `attempt` (1-based), or nil when the error is final or attempts are used up.
    public func delay(after error: ProviderError, attempt: Int,
                      random: (ClosedRange<Double>) -> Double = { Double.random(in: $0) }) -> Duration? {
        guard attempt < maxAttempts, error.isRetryable else { return nil }
        if case .rateLimited(let retryAfter?, _) = error { return min(retryAfter, maxDelay) }
        let exponential = baseDelay * (1 << min(attempt - 1, 20))
        let capped = min(exponential, maxDelay)
        // Full jitter: clients retrying together must not retry together.
        let seconds = Double(capped.components.seconds) + Double(capped.components.attoseconds) / 1e18
        return .milliseconds(Int64(random(0...seconds) * 1000))
    }

    /// How long a 429 asks us to wait, from its headers (names lower-cased).
    public static func serverDelay(headers: [String: String], now: Date = Date()) -> Duration? {
        if let value = headers["retry-after"]?.trimmingCharacters(in: .whitespaces) {
            if let seconds = Double(value) { return .milliseconds(Int64(seconds * 1000)) }
            if let date = httpDate(value) { return .milliseconds(Int64(max(0, date.timeIntervalSince(now)) * 1000)) }
        }
        // OpenAI and Groq: time until the request or token budget resets.
        let resets = ["x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"].compactMap { headers[$0] }
            .compactMap(goDuration)
        return resets.max()
    }

    /// Go-style durations as rate-limit headers write them: "1s", "6m0s", "1m30.5s", "250ms", "2h".
    public static func goDuration(_ text: String) -> Duration? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard !rest.isEmpty else { return nil }
        var total = 0.0
        let units: [(String, Double)] = [("ms", 0.001), ("us", 1e-6), ("µs", 1e-6), ("ns", 1e-9), ("h", 3600), ("m", 60), ("s", 1)]
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            guard let (unit, scale) = units.first(where: { rest.hasPrefix($0.0) }) else { return nil }
            rest = rest.dropFirst(unit.count)
            total += value * scale
        }
        return .milliseconds(Int64((total * 1000).rounded()))
    }

    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text)
    }
}

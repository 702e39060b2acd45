import Foundation

/// Sends a request with a retry policy: retries what is worth retrying
/// (429 after the server's delay, 5xx, timeouts, resets), never 401/403.
public struct RetryingSender: Sendable {
    public var client: HTTPClient
    public var policy: RetryPolicy
    /// Where each attempt, its outcome and every retry with its cause are
    /// reported (an element's debug log). Names the method, host and path,
    /// never the query (where some vendors put keys) or the headers.
    public var trace: ProviderTrace?

    public init(client: HTTPClient, policy: RetryPolicy) {
        self.client = client
        self.policy = policy
    }

    public struct Failure: Error, Sendable {
        public var error: ProviderError
        public var attempts: Int
    }

    /// The successful (2xx) response and how many attempts it took.
    public func send(_ request: HTTPRequest,
                     onChunk: (@Sendable (Data) -> Void)? = nil) async throws(Failure) -> (HTTPResponse, attempts: Int) {
        var attempt = 1
        let target = trace == nil ? "" : Self.describe(request)
        while true {
            let error: ProviderError
            trace?("\(target): attempt \(attempt) of \(policy.maxAttempts)")
            do {
                let response = try await client.send(request, onChunk: onChunk)
                if (200..<300).contains(response.status) {
                    trace?("\(target): \(response.status), \(response.body.count) bytes, first byte after \(Int(response.timeToFirstByte * 1000)) ms, done after \(Int(response.totalTime * 1000)) ms")
                    return (response, attempt)
                }
                error = ProviderError.from(status: response.status, headers: response.headers, body: response.body)
            } catch let failure {
                error = failure
            }
            guard let delay = policy.delay(after: error, attempt: attempt) else {
                trace?("\(target): failed for good after \(counted(attempt, "attempt")): \(error.status.map { "HTTP \($0), " } ?? "")\(error)")
                throw Failure(error: error, attempts: attempt)
            }
            trace?("\(target): \(error.status.map { "HTTP \($0), " } ?? "")\(error); retrying in \(delay)")
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw Failure(error: .cancelled, attempts: attempt)
            }
            attempt += 1
        }
    }

    /// "POST api.openai.com/v1/audio/transcriptions": no scheme, query or fragment.
    static func describe(_ request: HTTPRequest) -> String {
        guard let host = HTTPClient.hostAndPort(request.url), let components = URLComponents(string: request.url) else { return request.method }
        return "\(request.method) \(host)\(components.path)"
    }
}

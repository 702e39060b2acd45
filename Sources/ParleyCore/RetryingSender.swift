import Foundation

/// Sends a request with a retry policy: retries what is worth retrying
/// (429 after the server's delay, 5xx, timeouts, resets), never 401/403.
public struct RetryingSender: Sendable {
    public var client: HTTPClient
    public var policy: RetryPolicy

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
        while true {
            let error: ProviderError
            do {
                let response = try await client.send(request, onChunk: onChunk)
                if (200..<300).contains(response.status) { return (response, attempt) }
                error = ProviderError.from(status: response.status, headers: response.headers, body: response.body)
            } catch let failure {
                error = failure
            }
            guard let delay = policy.delay(after: error, attempt: attempt) else {
                throw Failure(error: error, attempts: attempt)
            }
            do {
                try await Task.sleep(for: delay)
            } catch {
                throw Failure(error: .cancelled, attempts: attempt)
            }
            attempt += 1
        }
    }
}

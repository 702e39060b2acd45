import Foundation
import ParleyTestSupport
import Testing
@testable import ParleyCore

/// The libcurl client against a real HTTP server on loopback.
@Suite struct HTTPClientTests {
    let client = HTTPClient()

    @Test func aSecondRequestReusesTheConnection() async throws {
        let server = try ScriptedHTTPServer([.respond(status: 200, body: "{\"text\":\"hello\"}")])
        defer { server.stop() }
        let first = try await client.send(HTTPRequest(url: server.url + "/v1/models"))
        let second = try await client.send(HTTPRequest(url: server.url + "/v1/models"))
        #expect(first.status == 200 && String(decoding: first.body, as: UTF8.self) == "{\"text\":\"hello\"}")
        #expect(first.newConnections == 1)
        #expect(second.newConnections == 0, "kept alive")
        #expect(server.connectionsAccepted == 1)
    }

    @Test func aMultipartPostArrivesWhole() async throws {
        let server = try ScriptedHTTPServer([.respond(status: 200, body: "ok")])
        defer { server.stop() }
        var form = MultipartForm()
        form.add(field: "model", value: "whisper-1")
        form.add(file: "file", filename: "a.wav", contentType: "audio/wav", data: Data(repeating: 7, count: 100_000))
        let request = HTTPRequest(method: "POST", url: server.url + "/v1/audio/transcriptions",
                                  headers: [("Content-Type", form.contentType), ("Authorization", "Bearer test")],
                                  body: form.data)
        let response = try await client.send(request)
        #expect(response.status == 200)
        let received = try #require(server.requests.first)
        #expect(received.method == "POST")
        #expect(received.path == "/v1/audio/transcriptions")
        #expect(received.body == form.data)
        #expect(received.headers["content-type"] == form.contentType)
    }

    @Test func errorStatusesComeBackWithHeadersToClassify() async throws {
        let server = try ScriptedHTTPServer([
            .respond(status: 429, headers: ["Retry-After": "1"], body: #"{"error":{"message":"Rate limit reached"}}"#),
        ])
        defer { server.stop() }
        let response = try await client.send(HTTPRequest(url: server.url))
        let error = ProviderError.from(status: response.status, headers: response.headers, body: response.body)
        #expect(error == .rateLimited(retryAfter: .seconds(1), message: "Rate limit reached"))
    }

    @Test func aSlowServerTimesOut() async throws {
        let server = try ScriptedHTTPServer([.respond(status: 200, body: "late", delayMs: 3000)])
        defer { server.stop() }
        var request = HTTPRequest(url: server.url)
        request.timeout = .milliseconds(300)
        await #expect(throws: ProviderError.self) { try await client.send(request) }
        do { _ = try await client.send(request) } catch {
            guard case .timeout = error else { Issue.record("expected a timeout, got \(error)"); return }
        }
    }

    /// A server thinking before it answers (a transcription sends nothing
    /// until it is done) is bounded by `timeout` alone, not by the stall
    /// limit: that one once applied from the start and cut a 30 s timeout
    /// to 15 s of thinking.
    @Test func aServerThinkingLongerThanTheStallLimitIsWaitedForUpToTheTimeout() async throws {
        let server = try ScriptedHTTPServer([.respond(status: 200, body: "thought it over", delayMs: 2500)])
        defer { server.stop() }
        var request = HTTPRequest(url: server.url)
        request.timeout = .seconds(20)
        request.stallTimeout = .seconds(1)
        let response = try await client.send(request)
        #expect(response.status == 200 && String(decoding: response.body, as: UTF8.self) == "thought it over")
    }

    /// An answer that starts and then stops is ended after the stall limit,
    /// long before the timeout, and says so.
    @Test func anAnswerThatStopsMidwayFailsAfterTheStallLimit() async throws {
        let server = try ScriptedHTTPServer([.stream(pieces: [("data: one\n\n", 0), ("data: two\n\n", 15_000)])])
        defer { server.stop() }
        var request = HTTPRequest(url: server.url)
        request.timeout = .seconds(60)
        request.stallTimeout = .seconds(1)
        do {
            // Without the stall limit the second piece would complete it at 15 s, inside the timeout.
            _ = try await client.send(request)
            Issue.record("a stream that stopped midway must fail")
        } catch {
            guard case .timeout(let reason) = error else { Issue.record("expected a timeout, got \(error)"); return }
            #expect(reason.contains("stopped midway"), "\(reason)")
            #expect(error.isRetryable)
        }
    }

    @Test func aResetIsANetworkError() async throws {
        let server = try ScriptedHTTPServer([.reset])
        defer { server.stop() }
        do {
            _ = try await client.send(HTTPRequest(url: server.url))
            Issue.record("a reset must fail")
        } catch {
            guard case .network = error else { Issue.record("expected a network error, got \(error)"); return }
            #expect(error.isRetryable)
        }
    }

    @Test func onlyHTTPAndHTTPSAreSpoken() async throws {
        for url in ["file:///etc/passwd", "dict://127.0.0.1:1/x", "gopher://127.0.0.1:1/x"] {
            do {
                let response = try await client.send(HTTPRequest(url: url))
                Issue.record("\(url) must be refused, got \(response.status): \(String(decoding: response.body.prefix(40), as: UTF8.self))")
            } catch {
                #expect(!"\(error)".contains("root:"), "nothing of the file is read: \(error)")
            }
        }
    }

    @Test func cancellingTheTaskCancelsTheRequestAtOnce() async throws {
        // The answer would come after a minute, past the request's 20 s timeout:
        // a cancellation that did not reach libcurl ends in that timeout (or the
        // answer), never in .cancelled, however loaded the machine is, so no
        // clock is read here (at the suite's start on two cores, the pool itself
        // may take tens of seconds to run this test's continuation).
        let server = try ScriptedHTTPServer([.respond(status: 200, body: "late", delayMs: 60_000)])
        defer { server.stop() }
        var request = HTTPRequest(url: server.url)
        request.timeout = .seconds(20)
        let task = Task { [request] in try await client.send(request) }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let result = await task.result
        guard case .failure(let error as ProviderError) = result, error == .cancelled else {
            Issue.record("expected cancellation, got \(result)")
            return
        }
    }

    @Test func streamedBodiesArriveAsTheyAreSent() async throws {
        let server = try ScriptedHTTPServer([.stream(pieces: [("data: one\n\n", 0), ("data: two\n\n", 300)])])
        defer { server.stop() }
        let firstChunkAt = LockedValue<ContinuousClock.Instant?>(nil)
        let started = ContinuousClock.now
        let response = try await client.send(HTTPRequest(url: server.url)) { _ in
            firstChunkAt.update { $0 = $0 ?? ContinuousClock.now }
        }
        let finished = ContinuousClock.now
        #expect(String(decoding: response.body, as: UTF8.self) == "data: one\n\ndata: two\n\n")
        let first = try #require(firstChunkAt.value)
        #expect(first - started < finished - started - .milliseconds(200), "the first chunk came before the last was sent")
    }
}

final class LockedValue<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T { lock.withLock { stored } }
    func update(_ body: (inout T) -> Void) { lock.withLock { body(&stored) } }
}

@Suite struct RetryingSenderTests {
    let sender = RetryingSender(client: HTTPClient(),
                                policy: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(50), maxDelay: .seconds(2)))

    @Test func aServerErrorThenSuccessTakesTwoAttempts() async throws {
        let server = try ScriptedHTTPServer([.respond(status: 500, body: "oops"), .respond(status: 200, body: "fine")])
        defer { server.stop() }
        let (response, attempts) = try await sender.send(HTTPRequest(url: server.url))
        #expect(String(decoding: response.body, as: UTF8.self) == "fine")
        #expect(attempts == 2)
    }

    @Test func rateLimitWaitsForRetryAfterThenSucceeds() async throws {
        let server = try ScriptedHTTPServer([
            .respond(status: 429, headers: ["Retry-After": "1"], body: #"{"error":{"message":"slow down"}}"#),
            .respond(status: 200, body: "fine"),
        ])
        defer { server.stop() }
        let started = ContinuousClock.now
        let (_, attempts) = try await sender.send(HTTPRequest(url: server.url))
        #expect(attempts == 2)
        #expect(ContinuousClock.now - started >= .milliseconds(950), "waited as the server asked")
    }

    @Test func unauthorizedIsFinalAtOnce() async throws {
        let server = try ScriptedHTTPServer([.respond(status: 401, body: #"{"error":{"message":"Incorrect API key provided"}}"#)])
        defer { server.stop() }
        do {
            _ = try await sender.send(HTTPRequest(url: server.url))
            Issue.record("401 must fail")
        } catch {
            #expect(error.attempts == 1)
            #expect(error.error == .unauthorized(message: "Incorrect API key provided"))
            #expect(server.requests.count == 1)
        }
    }

    @Test func attemptsAreBounded() async throws {
        let server = try ScriptedHTTPServer([.respond(status: 503, body: "down")])
        defer { server.stop() }
        do {
            _ = try await sender.send(HTTPRequest(url: server.url))
            Issue.record("must give up")
        } catch {
            #expect(error.attempts == 3)
            #expect(server.requests.count == 3)
        }
    }
}

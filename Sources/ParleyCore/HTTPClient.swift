import CCurl
import Foundation
import Synchronization

/// One HTTP request.
public struct HTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// Connecting may take this long.
    public var connectTimeout: Duration = .seconds(10)
    /// The whole exchange may take this long.
    public var timeout: Duration = .seconds(30)
    /// Once the answer has started, abort when no byte of it arrives for
    /// this long (a stream that stopped midway). Before its first byte the
    /// server is thinking, for as long as `timeout` allows: a transcription
    /// or a translation sends nothing until it is done. (This once applied
    /// from the start, and cut a 30 s `timeout` to 15 s of thinking: a
    /// first Whisper request on a busy machine failed every attempt.)
    public var stallTimeout: Duration = .seconds(15)
    /// A provider is untrusted: a response body over this many bytes is
    /// cut off and the request fails (`ProviderError.decoding`).
    public var maxResponseBytes = 64 << 20
    /// What a text answer (a transcript, a translation, a chat stream) may
    /// take: ample for 25 minutes of speech with timestamps, far below what
    /// would exhaust memory.
    public static let maxTextResponseBytes = 4 << 20

    public init(method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header names in lower case; a repeated header keeps its last value.
    public var headers: [String: String]
    public var body: Data
    /// Connections this request had to open (0 when it reused a kept-alive one).
    public var newConnections: Int
    /// From the start of the request, in seconds.
    public var timeToFirstByte: Double
    public var totalTime: Double
}

/// An HTTP client on one libcurl multi handle driven by one thread: many
/// requests in flight, connections kept alive and reused across requests to
/// the same host, response bodies streamed as they arrive, timeouts and
/// cancellation. TLS is verified; proxies come from the usual environment
/// variables (libcurl reads http_proxy, https_proxy, no_proxy).
public final class HTTPClient: Sendable {
    private let engine: Engine

    public init() { engine = Engine() }

    deinit { engine.shutdown() }

    /// Sends `request`; `onChunk` sees the body of a 2xx answer as it
    /// arrives (an error answer's body is only in the response). An error
    /// status is a response here; `ProviderError.from` classifies it.
    public func send(_ request: HTTPRequest,
                     onChunk: (@Sendable (Data) -> Void)? = nil) async throws(ProviderError) -> HTTPResponse {
        let transfer = Transfer(request: request, onChunk: onChunk)
        let result: Result<HTTPResponse, ProviderError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.continuation = continuation
                engine.add(transfer)
            }
        } onCancel: {
            engine.cancel(transfer)
        }
        return try result.get()
    }
}

/// One request in flight. Touched by the engine thread, and by the caller
/// only before it is handed over.
private final class Transfer: @unchecked Sendable {
    let request: HTTPRequest
    let onChunk: (@Sendable (Data) -> Void)?
    var continuation: CheckedContinuation<Result<HTTPResponse, ProviderError>, Never>?
    var easy: UnsafeMutableRawPointer?
    var headerList: UnsafeMutablePointer<curl_slist>?
    var bodyCopy: UnsafeMutableRawPointer?
    var received = Data()
    var headers: [String: String] = [:]
    var tooLarge = false
    /// When the last byte of the answer (status line, header or body) arrived; nil before the first.
    var lastByte: ContinuousClock.Instant?
    let cancelled = Atomic<Bool>(false)

    init(request: HTTPRequest, onChunk: (@Sendable (Data) -> Void)?) {
        self.request = request
        self.onChunk = onChunk
    }

    func finish(_ result: Result<HTTPResponse, ProviderError>) {
        continuation?.resume(returning: result)
        continuation = nil
    }
}

private func milliseconds(_ duration: Duration) -> Int {
    Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
}

/// The multi handle and its thread.
private final class Engine: @unchecked Sendable {
    // @unchecked: `multi` and `active` belong to the engine thread; the
    // inboxes are behind `lock`.
    private let multi: UnsafeMutableRawPointer
    private let lock = NSLock()
    private var additions: [Transfer] = []
    private var cancellations: [Transfer] = []
    private var active: [ObjectIdentifier: Transfer] = [:]
    private let running = Atomic<Bool>(true)
    private let stopped = DispatchSemaphore(value: 0)

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    init() {
        _ = Self.globalInit
        multi = curl_multi_init()!
        let thread = Thread { [self] in loop() }
        thread.name = "parley-http"
        thread.start()
    }

    func add(_ transfer: Transfer) {
        lock.withLock { additions.append(transfer) }
        curl_multi_wakeup(multi)
    }

    func cancel(_ transfer: Transfer) {
        transfer.cancelled.store(true, ordering: .relaxed)
        lock.withLock { cancellations.append(transfer) }
        curl_multi_wakeup(multi)
    }

    func shutdown() {
        running.store(false, ordering: .relaxed)
        curl_multi_wakeup(multi)
        stopped.wait()
    }

    private func loop() {
        defer {
            for transfer in active.values { remove(transfer, with: .failure(.cancelled)) }
            curl_multi_cleanup(multi)
            stopped.signal()
        }
        while running.load(ordering: .relaxed) {
            let (adding, cancelling) = lock.withLock {
                defer { additions.removeAll(); cancellations.removeAll() }
                return (additions, cancellations)
            }
            for transfer in adding { start(transfer) }
            for transfer in cancelling where active[ObjectIdentifier(transfer)] != nil {
                remove(transfer, with: .failure(.cancelled))
            }
            var stillRunning: Int32 = 0
            curl_multi_perform(multi, &stillRunning)
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                      let transfer = active.values.first(where: { $0.easy == easy }) else { continue }
                complete(transfer, code: message.pointee.data.result)
            }
            abortStalled()
            // At most a second between checks: a stall is found within a second of its time.
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }

    private func start(_ transfer: Transfer) {
        if transfer.cancelled.load(ordering: .relaxed) {
            transfer.finish(.failure(.cancelled))
            return
        }
        guard let easy = curl_easy_init() else {
            transfer.finish(.failure(.network("libcurl could not start a request")))
            return
        }
        transfer.easy = easy
        let request = transfer.request
        parley_curl_set_string(easy, CURLOPT_URL, request.url)
        // Providers speak HTTP: libcurl's other schemes (file, dict, gopher...) are
        // refused here too, whatever a URL or a redirect asks for.
        parley_curl_set_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        parley_curl_set_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        parley_curl_set_long(easy, CURLOPT_NOSIGNAL, 1)
        parley_curl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(request.connectTimeout))
        parley_curl_set_long(easy, CURLOPT_TIMEOUT_MS, milliseconds(request.timeout))
        parley_curl_set_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        if request.method != "GET" { parley_curl_set_string(easy, CURLOPT_CUSTOMREQUEST, request.method) }
        if let body = request.body {
            let copy = UnsafeMutableRawPointer.allocate(byteCount: max(1, body.count), alignment: 1)
            body.copyBytes(to: copy.assumingMemoryBound(to: UInt8.self), count: body.count)
            transfer.bodyCopy = copy
            parley_curl_set_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            parley_curl_set_pointer(easy, CURLOPT_POSTFIELDS, copy)
        }
        var list: UnsafeMutablePointer<curl_slist>?
        for header in request.headers { list = curl_slist_append(list, "\(header.name): \(header.value)") }
        // A body over 1 KiB must not wait for "100 Continue".
        list = curl_slist_append(list, "Expect:")
        transfer.headerList = list
        parley_curl_set_pointer(easy, CURLOPT_HTTPHEADER, list)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        parley_curl_set_callback(easy, CURLOPT_WRITEFUNCTION, { data, size, count, user in
            let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            let chunk = Data(bytes: data!, count: size * count)
            guard transfer.received.count + chunk.count <= transfer.request.maxResponseBytes else {
                transfer.tooLarge = true
                return 0  // libcurl ends the transfer with CURLE_WRITE_ERROR
            }
            transfer.received.append(chunk)
            transfer.lastByte = .now
            // Only a successful answer streams: an error body (a 503 before a
            // retry) is no part of the stream the caller is parsing.
            if let onChunk = transfer.onChunk, let easy = transfer.easy,
               (200..<300).contains(parley_curl_info_long(easy, CURLINFO_RESPONSE_CODE)) {
                onChunk(chunk)
            }
            return size * count
        })
        parley_curl_set_pointer(easy, CURLOPT_WRITEDATA, context)
        parley_curl_set_callback(easy, CURLOPT_HEADERFUNCTION, { data, size, count, user in
            let transfer = Unmanaged<Transfer>.fromOpaque(user!).takeUnretainedValue()
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self)
            transfer.lastByte = .now
            if line.hasPrefix("HTTP/") { transfer.headers.removeAll() }  // a new response (redirect, 100)
            if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                transfer.headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            }
            return size * count
        })
        parley_curl_set_pointer(easy, CURLOPT_HEADERDATA, context)
        active[ObjectIdentifier(transfer)] = transfer
        curl_multi_add_handle(multi, easy)
    }

    private func complete(_ transfer: Transfer, code: CURLcode) {
        guard let easy = transfer.easy else { return }
        let result: Result<HTTPResponse, ProviderError>
        switch code {
        case CURLE_OK:
            result = .success(HTTPResponse(
                status: parley_curl_info_long(easy, CURLINFO_RESPONSE_CODE),
                headers: transfer.headers, body: transfer.received,
                newConnections: parley_curl_info_long(easy, CURLINFO_NUM_CONNECTS),
                timeToFirstByte: Double(parley_curl_info_offset(easy, CURLINFO_STARTTRANSFER_TIME_T)) / 1e6,
                totalTime: Double(parley_curl_info_offset(easy, CURLINFO_TOTAL_TIME_T)) / 1e6))
        case _ where transfer.tooLarge:
            result = .failure(.decoding("the answer from \(Self.host(transfer.request.url)) is over \(transfer.request.maxResponseBytes) bytes: cut off"))
        case CURLE_OPERATION_TIMEDOUT:
            result = .failure(.timeout("no complete answer from \(Self.host(transfer.request.url)) within the time allowed"))
        default:
            let reason = String(cString: curl_easy_strerror(code))
            result = .failure(.network("\(reason) (\(Self.host(transfer.request.url)))"))
        }
        remove(transfer, with: result)
    }

    /// Ends the answers that started and then stopped for their `stallTimeout`
    /// (libcurl's low-speed limit would count the server's thinking too).
    private func abortStalled() {
        let now = ContinuousClock.now
        for transfer in active.values {
            guard let last = transfer.lastByte, now - last > transfer.request.stallTimeout else { continue }
            let seconds = Double(milliseconds(transfer.request.stallTimeout)) / 1000
            remove(transfer, with: .failure(.timeout(
                "the answer from \(Self.host(transfer.request.url)) stopped midway: nothing for \(String(format: "%g", seconds)) s")))
        }
    }

    private func remove(_ transfer: Transfer, with result: Result<HTTPResponse, ProviderError>) {
        if let easy = transfer.easy {
            curl_multi_remove_handle(multi, easy)
            curl_easy_cleanup(easy)
        }
        transfer.easy = nil
        if let list = transfer.headerList { curl_slist_free_all(list) }
        transfer.headerList = nil
        transfer.bodyCopy?.deallocate()
        transfer.bodyCopy = nil
        active[ObjectIdentifier(transfer)] = nil
        transfer.finish(result)
    }

    /// Host and port only: URLs may carry keys in their query.
    private static func host(_ url: String) -> String { HTTPClient.hostAndPort(url) ?? "the server" }
}

extension HTTPClient {
    /// "api.openai.com" or "127.0.0.1:8080": what messages and logs name a server by.
    static func hostAndPort(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let host = components.host else { return nil }
        return components.port.map { "\(host):\($0)" } ?? host
    }
}

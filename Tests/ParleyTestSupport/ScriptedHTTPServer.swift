import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real HTTP/1.1 server on 127.0.0.1 for faults a real provider will not
/// produce on demand (429, 5xx, a reset, a stall). Keep-alive, Content-Length
/// bodies, chunked streaming. Replies are served in order; the last repeats.
public final class ScriptedHTTPServer: @unchecked Sendable {
    public enum Reply: Sendable {
        case respond(status: Int, headers: [String: String] = [:], body: String = "", delayMs: Int = 0)
        /// Chunked body, each piece after its delay.
        case stream(pieces: [(String, Int)])
        /// A chunked 200 body of raw bytes (audio), each piece after its delay.
        case bytes(pieces: [(Data, Int)], contentType: String)
        /// Close the connection with a TCP reset instead of answering.
        case reset
        /// A chunked 200 event stream that breaks with a TCP reset after its pieces.
        case streamThenReset(pieces: [(String, Int)])
    }

    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [String: String]
        public var body: Data
    }

    public let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var replies: [Reply]
    private var received: [Request] = []
    private var accepted = 0
    private var connections: [Int32] = []
    private var stopped = false
    private var holding = false

    public init(_ replies: [Reply]) throws {
        self.replies = replies
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw CocoaError(.fileReadUnknown) }
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    public var url: String { "http://127.0.0.1:\(port)" }

    /// The URL of a loopback port nothing listens on: a provider that is down.
    public static func closedURL() -> String { closedPortURL }

    /// A socket bound and never listening, held for the whole test run: a
    /// connection to its port is refused, and no server of another test
    /// running at the same time can be given that port (a port closed after
    /// the probe could be).
    private static let closedPortURL: String = {
        let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                _ = bind(probe, $0, length)
                _ = getsockname(probe, $0, &length)
            }
        }
        return "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
    }()

    /// Until `release()`, every reply waits (then its own delay): a test
    /// decides when the first answers come, not the machine's load.
    public func hold() { lock.withLock { holding = true } }
    public func release() { lock.withLock { holding = false } }

    public var requests: [Request] { lock.withLock { received } }
    public var connectionsAccepted: Int { lock.withLock { accepted } }

    public func stop() {
        lock.withLock {
            stopped = true
            for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let keep = lock.withLock { () -> Bool in
                accepted += 1
                connections.append(connection)
                return !stopped
            }
            guard keep else { close(connection); return }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        // Forget the descriptor before closing it: its number is reused at once.
        defer {
            lock.withLock {
                connections.removeAll { $0 == connection }
                close(connection)
            }
        }
        var buffer = Data()
        while true {
            guard let request = readRequest(connection, &buffer) else { return }
            let reply = lock.withLock { () -> Reply in
                received.append(request)
                return replies.count > 1 ? replies.removeFirst() : replies[0]
            }
            while lock.withLock({ holding && !stopped }) { usleep(10_000) }
            switch reply {
            case .respond(let status, let headers, let body, let delayMs):
                if delayMs > 0 { usleep(useconds_t(delayMs * 1000)) }
                var head = "HTTP/1.1 \(status) Status\r\nContent-Length: \(body.utf8.count)\r\n"
                for (name, value) in headers { head += "\(name): \(value)\r\n" }
                guard write(connection, head + "\r\n" + body) else { return }
            case .stream(let pieces):
                guard write(connection, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n") else { return }
                for (piece, delayMs) in pieces {
                    usleep(useconds_t(delayMs * 1000))
                    guard write(connection, String(piece.utf8.count, radix: 16) + "\r\n" + piece + "\r\n") else { return }
                }
                guard write(connection, "0\r\n\r\n") else { return }
            case .bytes(let pieces, let contentType):
                guard write(connection, "HTTP/1.1 200 OK\r\nContent-Type: \(contentType)\r\nTransfer-Encoding: chunked\r\n\r\n") else { return }
                for (piece, delayMs) in pieces {
                    usleep(useconds_t(delayMs * 1000))
                    guard write(connection, String(piece.count, radix: 16) + "\r\n"), write(connection, [UInt8](piece)),
                          write(connection, "\r\n") else { return }
                }
                guard write(connection, "0\r\n\r\n") else { return }
            case .streamThenReset(let pieces):
                guard write(connection, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n") else { return }
                for (piece, delayMs) in pieces {
                    usleep(useconds_t(delayMs * 1000))
                    guard write(connection, String(piece.utf8.count, radix: 16) + "\r\n" + piece + "\r\n") else { return }
                }
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                return
            case .reset:
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                return
            }
        }
    }

    private func write(_ connection: Int32, _ text: String) -> Bool { write(connection, Array(text.utf8)) }

    private func write(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    private func readRequest(_ connection: Int32, _ buffer: inout Data) -> Request? {
        let separator = Data("\r\n\r\n".utf8)
        while buffer.range(of: separator) == nil {
            guard readMore(connection, &buffer) else { return nil }
        }
        let headerEnd = buffer.range(of: separator)!
        let head = String(decoding: buffer[..<headerEnd.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = head[0].split(separator: " ")
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        let bodyStart = headerEnd.upperBound
        while buffer.count - bodyStart < length {
            guard readMore(connection, &buffer) else { return nil }
        }
        let body = buffer[bodyStart..<(bodyStart + length)]
        buffer = Data(buffer[(bodyStart + length)...])
        return Request(method: String(requestLine.first ?? ""), path: requestLine.count > 1 ? String(requestLine[1]) : "",
                       headers: headers, body: Data(body))
    }

    private func readMore(_ connection: Int32, _ buffer: inout Data) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(connection, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }
}

import Foundation
import ParleyCore

/// A real `nats-server -js` (Debian's package) on a loopback port with file
/// storage in a folder of the test's, stopped when the test ends. It can be
/// killed and started again on the same port and storage.
public final class NATSServer: @unchecked Sendable {
    public static let executable = "/usr/sbin/nats-server"
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    public let storage: URL
    public private(set) var port: Int
    private var process: Process?
    private var output: LineWatcher?
    private let host: String
    private let wrapper: [String]
    private let options: [String]

    /// Starts the server; `port` 0 lets it choose one. `wrapper` runs it
    /// through another program (`ip netns exec NAME`); `options` are more
    /// nats-server options (`--auth TOKEN`).
    public init(storage: URL, host: String = "127.0.0.1", port: Int = 0, wrapper: [String] = [], options: [String] = []) throws {
        self.storage = storage
        self.port = port
        self.host = host
        self.wrapper = wrapper
        self.options = options
        try start()
    }

    /// From a task: the same, started on a thread of its own (see DrainedPipe).
    public init(storage: URL, host: String = "127.0.0.1", port: Int = 0, wrapper: [String] = [], options: [String] = []) async throws {
        self.storage = storage
        self.port = port
        self.host = host
        self.wrapper = wrapper
        self.options = options
        try await start()
    }

    public var url: String { "nats://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)" }
    /// The same address for a client that speaks TLS (a server started
    /// with `--tls` options).
    public var tlsURL: String { url.replacingOccurrences(of: "nats://", with: "tls://") }

    public func start() throws {
        let process = Process()
        let arguments = ["-js", "-sd", storage.path, "-a", host, "-p", port == 0 ? "-1" : String(port)] + options
        process.executableURL = URL(fileURLWithPath: wrapper.isEmpty ? Self.executable : wrapper[0])
        process.arguments = wrapper.isEmpty ? arguments : Array(wrapper.dropFirst()) + [Self.executable] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        let watcher = LineWatcher(pipe, waitingFor: "Server is ready")
        try ProcessEnvironment.whileSpawning { try process.run() }
        guard watcher.wait(seconds: 20) else {
            process.terminate()
            throw HelperFailure(description: "nats-server did not start: \(watcher.text)")
        }
        if port == 0, let range = watcher.text.range(of: #"client connections on [0-9.]+:(\d+)"#, options: .regularExpression),
           let found = Int(watcher.text[range].split(separator: ":").last ?? "") {
            port = found
        }
        self.process = process
        self.output = watcher
    }

    /// From a task: started on a thread of its own (see DrainedPipe).
    public func start() async throws { try await OffPool.run { () throws in try self.start() } }

    /// SIGKILL: no clean shutdown, as a crash or a pulled plug would be
    /// (what the OS already has of its files is kept).
    public func kill() {
        guard let process else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    public var log: String { output?.text ?? "" }

    deinit { kill() }
}

/// A helper program of the tests' (a server, a certificate tool) that did
/// not do its part, with what it said.
public struct HelperFailure: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// A `parley worker` (or any long-running parley command) whose standard
/// error is collected; killed when the test ends.
public final class ParleyProcess: @unchecked Sendable {
    public let process = Process()
    private let watcher: LineWatcher

    public init(_ arguments: [String], environment: [String: String]? = nil, wrapper: [String] = [],
                currentDirectory: URL? = nil) throws {
        process.executableURL = URL(fileURLWithPath: wrapper.isEmpty ? TestSupport.parleyExecutable : wrapper[0])
        process.arguments = wrapper.isEmpty ? arguments : Array(wrapper.dropFirst()) + [TestSupport.parleyExecutable] + arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        watcher = LineWatcher(pipe, waitingFor: "\u{0}")
        try ProcessEnvironment.whileSpawning { try process.run() }
    }

    public var pid: Int32 { process.processIdentifier }
    public var output: String { watcher.text }

    /// Waits until the output contains `text`.
    public func wait(for text: String, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if output.contains(text) { return true }
            if !process.isRunning { return output.contains(text) }
            usleep(20_000)
        }
        return false
    }

    /// From a task: the same waits on a thread of their own (see DrainedPipe).
    public func wait(for text: String, seconds: Double) async -> Bool { await OffPool.run { self.wait(for: text, seconds: seconds) } }
    public func exitStatus(within seconds: Double) async -> Int32? { await OffPool.run { self.exitStatus(within: seconds) } }

    public func signal(_ number: Int32) { Foundation.kill(pid, number) }

    /// Waits for the exit; nil when it did not come within `seconds`.
    public func exitStatus(within seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    deinit {
        if process.isRunning {
            Foundation.kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }
}

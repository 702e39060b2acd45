import Foundation
import ParleyCore
import Synchronization

/// Paths and subprocess helpers shared by the tests that drive real programs.
public enum TestSupport {
    /// The build folder holding the test bundle, `parley` and libgstparley.so.
    public static let buildFolder: URL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent()

    public static var pluginFolder: String { buildFolder.path }
    public static var parleyExecutable: String { buildFolder.appendingPathComponent("parley").path }
    public static var packageRoot: URL {
        var url = buildFolder
        while url.path != "/" && !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
            url = url.deletingLastPathComponent()
        }
        return url
    }

    /// A new empty folder, removed with everything in it when the test
    /// process exits. Suites hold one per test (`let scratch = …` is made
    /// for each test), and some hold hundreds of MB (a SwiftPM consumer's
    /// build): a run must not leave them behind.
    public static func temporaryFolder() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("parley-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        TemporaryFolders.remember(url)
        return url
    }

    /// An environment that sees only this build's plugin, with a registry of
    /// its own so no stale cache or blacklist from elsewhere interferes, and
    /// caches of its own under the same folder (XDG_CACHE_HOME): a
    /// streamtranslator keeps translations on disk by default, and one kept
    /// by an earlier run (a server that got the same port) would answer
    /// without the request a test measures.
    public static func gstEnvironment(registry: URL) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["GST_PLUGIN_PATH"] = pluginFolder
        environment["GST_REGISTRY"] = registry.appendingPathComponent("registry.bin").path
        environment["XDG_CACHE_HOME"] = registry.appendingPathComponent("cache").path
        return environment
    }

    /// The processes whose parent is `pid` (from /proc), e.g. the Whisper worker
    /// of a `parley serve` or a gst-launch-1.0.
    public static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { Int32($0) }.filter { candidate in
            // /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces, so read after the last ')'.
            guard let stat = try? String(contentsOfFile: "/proc/\(candidate)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid
        }
    }

    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs a program to completion, off Swift's cooperative pool.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                    currentDirectory: URL? = nil, input: String? = nil) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        try ProcessEnvironment.whileSpawning { try process.run() }
        if let input {
            try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try stdin.fileHandleForWriting.close()
        }
        return await withCheckedContinuation { continuation in
            Thread {
                // Both pipes are drained at once: a full stderr pipe would
                // otherwise stall a chatty child while we wait on stdout.
                let errors = DrainedPipe(err)
                let stdout = out.fileHandleForReading.readDataToEndOfFile()
                let stderr = errors.wait()
                process.waitUntilExit()
                continuation.resume(returning: Result(
                    status: process.terminationStatus,
                    stdout: String(decoding: stdout, as: UTF8.self),
                    stderr: String(decoding: stderr, as: UTF8.self)))
            }.start()
        }
    }
}

/// Reads a pipe to its end on a thread of its own.
public final class DrainedPipe: @unchecked Sendable {
    private var data: Data {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
    private var stored = Data()
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    public init(_ pipe: Pipe) {
        Thread { [self] in
            data = pipe.fileHandleForReading.readDataToEndOfFile()
            done.signal()
        }.start()
    }
    public func wait() -> Data {
        done.wait()
        return data
    }

    /// What was read, waiting at most `seconds` for the end: a child started
    /// meanwhile on another thread may hold the pipe open (Foundation's
    /// Process lets children inherit descriptors), and a test must not hang on it.
    public func wait(seconds: Double) -> Data {
        _ = done.wait(timeout: .now() + seconds)
        return data
    }

    // From a task the waits run on a thread of their own: a test blocking
    // one of Swift's few pool threads for seconds stalls every other test's
    // task (on two cores a full run saw a 25 s stall).
    public func wait() async -> Data { await OffPool.run { self.wait() } }
    public func wait(seconds: Double) async -> Data { await OffPool.run { self.wait(seconds: seconds) } }
}

/// Runs blocking code on a thread of its own, as GStreamer streaming threads
/// are: blocking Swift's small cooperative pool would starve the work itself.
public func onThread(_ body: @escaping @Sendable () -> Void) async { await OffPool.run(body) }

/// Collects a pipe's text on a thread and says when a marker appears.
public final class LineWatcher: @unchecked Sendable {
    private let lock = NSLock()
    private var collected = ""
    private let marker: String
    public init(_ pipe: Pipe, waitingFor marker: String) {
        self.marker = marker
        Thread { [self] in
            while true {
                let data = pipe.fileHandleForReading.availableData
                if data.isEmpty { return }
                lock.withLock { collected += String(decoding: data, as: UTF8.self) }
            }
        }.start()
    }
    public var text: String { lock.withLock { collected } }
    /// Blocks (on the caller's thread) until the marker appears.
    public func wait(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if text.contains(marker) { return true }
            usleep(5_000)
        }
        return false
    }

    /// From a task: the same wait on a thread of its own (see DrainedPipe).
    public func wait(seconds: Double) async -> Bool { await OffPool.run { self.wait(seconds: seconds) } }
}

/// The folders `TestSupport.temporaryFolder()` made, removed at exit.
private enum TemporaryFolders {
    private static let made = Mutex<[URL]>([])
    /// Registers the exit handler once, on first use.
    private static let removalAtExit: Void = { atexit { TemporaryFolders.removeAll() } }()

    static func remember(_ url: URL) {
        _ = removalAtExit
        made.withLock { $0.append(url) }
    }

    private static func removeAll() {
        for url in made.withLock({ $0 }) { try? FileManager.default.removeItem(at: url) }
    }
}

extension Process {
    /// From a task: waits for the exit on a thread of its own (see DrainedPipe).
    public func waitUntilExit() async { await OffPool.run { self.waitUntilExit() } }
}

extension Array {
    /// The element at `index`, or nil past the end: a test reads what a run produced without trapping on too little.
    public subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

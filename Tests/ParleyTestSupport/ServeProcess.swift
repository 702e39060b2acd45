import Foundation
import ParleyCore

/// A running `parley serve`, stopped when the test ends.
public final class ServeProcess: @unchecked Sendable {
    public let process = Process()
    public var url = ""
    private var errors: DrainedPipe?

    public init(_ arguments: [String] = []) async throws {
        process.executableURL = URL(fileURLWithPath: TestSupport.parleyExecutable)
        process.arguments = ["serve", "--port", "0"] + arguments
        let out = Pipe()
        process.standardOutput = out
        let err = Pipe()
        process.standardError = err
        try ProcessEnvironment.whileSpawning { try process.run() }
        errors = DrainedPipe(err)
        url = await withCheckedContinuation { continuation in
            Thread {
                var seen = Data()
                while true {
                    let chunk = out.fileHandleForReading.availableData
                    if chunk.isEmpty { continuation.resume(returning: ""); return }
                    seen.append(chunk)
                    let text = String(decoding: seen, as: UTF8.self)
                    if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) {
                        continuation.resume(returning: String(line.dropFirst("listening on ".count)))
                        return
                    }
                }
            }.start()
        }
    }

    public var pid: Int32 { process.processIdentifier }

    /// Stops the server; returns what it wrote to standard error.
    @discardableResult
    public func stop() -> String {
        process.terminate()
        process.waitUntilExit()
        return String(decoding: errors?.wait(seconds: 5) ?? Data(), as: UTF8.self)
    }

    /// From a task: stopped on a thread of its own (see DrainedPipe).
    @discardableResult
    public func stop() async -> String { await OffPool.run { self.stop() } }
}

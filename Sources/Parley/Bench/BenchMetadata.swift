import Foundation
import ParleyCore

/// What a bench report says about how it was made, so two reports can be
/// compared knowingly: Parley's version and commit, the host, the date and
/// the exact command (secrets left out).
public struct BenchMetadata: Sendable, Codable, Equatable {
    public var parleyVersion: String
    /// The source tree's commit, when the bench ran from a git checkout.
    public var commit: String?
    public var hostCPU: String
    public var cores: Int
    /// ISO 8601, UTC.
    public var date: String
    /// The command line as run; `--set` values whose name looks like a
    /// secret, and anything shaped like a key, are `[redacted]`.
    public var command: String

    enum CodingKeys: String, CodingKey {
        case commit, cores, date, command
        case parleyVersion = "parley-version", hostCPU = "host-cpu"
    }

    public init(parleyVersion: String, commit: String?, hostCPU: String, cores: Int, date: String, command: String) {
        self.parleyVersion = parleyVersion
        self.commit = commit
        self.hostCPU = hostCPU
        self.cores = cores
        self.date = date
        self.command = command
    }

    /// This process's: `arguments` as it was started.
    public static func current(arguments: [String] = CommandLine.arguments) -> BenchMetadata {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return BenchMetadata(parleyVersion: Release.version, commit: gitCommit(), hostCPU: cpuModel(),
                             cores: ProcessInfo.processInfo.activeProcessorCount, date: formatter.string(from: Date()),
                             command: commandLine(arguments))
    }

    /// The arguments as one shell-like line, secrets out.
    static func commandLine(_ arguments: [String]) -> String {
        var shown: [String] = []
        for (index, argument) in arguments.enumerated() {
            var value = argument
            if index > 0, arguments[index - 1] == "--set", let equals = argument.firstIndex(of: "=") {
                let name = String(argument[..<equals])
                if Session.publicVariables([name: String(argument[argument.index(after: equals)...])]).isEmpty {
                    value = "\(name)=[redacted]"
                }
            }
            value = Redaction.redact(SafeText.oneLine(value))
            shown.append(value.contains(" ") || value.isEmpty ? "'\(value)'" : value)
        }
        if let first = shown.first { shown[0] = URL(fileURLWithPath: first).lastPathComponent }
        return shown.joined(separator: " ")
    }

    /// /proc/cpuinfo's first model name.
    static func cpuModel() -> String {
        let info = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let line = info.split(separator: "\n").first { $0.hasPrefix("model name") }
        return line.flatMap { $0.split(separator: ":", maxSplits: 1).last }.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
    }

    /// HEAD of the git checkout in the current folder, read from .git (no git needed).
    static func gitCommit() -> String? {
        var folder = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        for _ in 0..<8 {
            let git = folder.appendingPathComponent(".git")
            if let head = try? String(contentsOf: git.appendingPathComponent("HEAD"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) {
                guard head.hasPrefix("ref: ") else { return head.count == 40 ? head : nil }
                let ref = String(head.dropFirst(5))
                if let commit = try? String(contentsOf: git.appendingPathComponent(ref), encoding: .utf8) {
                    return commit.trimmingCharacters(in: .whitespacesAndNewlines)
                }
                let packed = (try? String(contentsOf: git.appendingPathComponent("packed-refs"), encoding: .utf8)) ?? ""
                return packed.split(separator: "\n").first { $0.hasSuffix(" \(ref)") }.map { String($0.prefix(40)) }
            }
            folder.deleteLastPathComponent()
        }
        return nil
    }
}

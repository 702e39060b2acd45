import Foundation
import ParleyCore

/// Job folders a worker killed by SIGKILL left behind. Each folder a worker
/// makes holds `.owner` with its process id; a later worker removes the ones
/// whose owner is gone. Made private (mode 0700), they were never readable
/// by another user meanwhile.
public enum LeftoverFolders {
    static let ownerFile = ".owner"

    /// Makes `parent/prefix-XXXXXX`, private, marked as this process's.
    public static func make(prefix: String, in parent: URL) throws -> URL {
        let folder = try PrivateFolder.make(prefix: prefix, in: parent)
        try Data("\(getpid())\n".utf8).write(to: folder.appendingPathComponent(ownerFile))
        return folder
    }

    /// Removes the folders in `parent` (those whose name starts with
    /// `prefix`, when given) that this user owns and whose owner process is
    /// no longer running. Returns how many it removed.
    @discardableResult
    public static func sweep(_ parent: URL, prefix: String? = nil) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
        var removed = 0
        for name in names where prefix.map({ name.hasPrefix($0) }) ?? true {
            let folder = parent.appendingPathComponent(name)
            var status = stat()
            guard lstat(folder.path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid(),
                  let text = try? String(contentsOf: folder.appendingPathComponent(ownerFile), encoding: .utf8),
                  let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 0, !isRunning(pid) else { continue }
            if (try? FileManager.default.removeItem(at: folder)) != nil { removed += 1 }
        }
        return removed
    }

    /// Whether a process `pid` exists (one of another user's counts as running).
    static func isRunning(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}

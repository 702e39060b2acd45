// Where scripts/prepare-piper put the Piper voice, and whether it is complete.
import Foundation
import ParleyCore

public struct PiperInstallation: Sendable, Equatable, Hashable {
    /// The engine folder: venv/, piper_worker.py and the `ready` stamp.
    public var folder: String

    public init(folder: String) { self.folder = folder }

    /// `$PARLEY_PIPER_DIR`, else `${XDG_DATA_HOME:-~/.local/share}/parley/piper-joe`:
    /// the rule scripts/prepare-piper follows.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> PiperInstallation {
        PiperInstallation(folder: Session.engineFolder("piper-joe", unless: "PARLEY_PIPER_DIR", environment: environment))
    }

    public var python: String { folder + "/venv/bin/python" }
    public var worker: String { folder + "/piper_worker.py" }

    /// The stamp is written last, once the voice has spoken.
    public var isPrepared: Bool {
        let files = FileManager.default
        return files.fileExists(atPath: folder + "/ready") && files.isExecutableFile(atPath: python)
            && files.fileExists(atPath: worker)
    }

    /// What to tell someone whose voice is missing.
    public var notPreparedAdvice: String {
        "the Piper voice is not prepared in \(folder): run scripts/setup (or scripts/prepare-piper)"
    }
}

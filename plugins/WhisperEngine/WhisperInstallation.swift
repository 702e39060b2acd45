// Where scripts/prepare-whisper put the Whisper-base engine, and whether it
// is complete.
import Foundation
import ParleyCore

public struct WhisperInstallation: Sendable, Equatable {
    /// The engine folder: venv/, model/, whisper_worker.py and the `ready` stamp.
    public var folder: String

    public init(folder: String) { self.folder = folder }

    /// `$PARLEY_WHISPER_DIR`, else `${XDG_DATA_HOME:-~/.local/share}/parley/whisper-base`:
    /// the rule scripts/prepare-whisper follows.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> WhisperInstallation {
        WhisperInstallation(folder: Session.engineFolder("whisper-base", unless: "PARLEY_WHISPER_DIR", environment: environment))
    }

    public var python: String { folder + "/venv/bin/python" }
    public var worker: String { folder + "/whisper_worker.py" }
    public var model: String { folder + "/model" }

    /// The stamp is written last, after the model's checksum matched.
    public var isPrepared: Bool {
        let files = FileManager.default
        return files.fileExists(atPath: folder + "/ready") && files.isExecutableFile(atPath: python)
            && files.fileExists(atPath: worker) && files.fileExists(atPath: model + "/model.bin")
    }

    /// What to tell someone whose engine is missing.
    public var notPreparedAdvice: String {
        "the Whisper engine is not prepared in \(folder): run scripts/setup (or scripts/prepare-whisper)"
    }
}

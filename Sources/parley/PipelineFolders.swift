import Foundation

/// Where `parley list` and `parley run NAME` look for pipeline files, in
/// order: `--dir`; `./pipelines`; the installed copy next to the executable
/// (`PREFIX/share/parley/pipelines` for `PREFIX/bin/parley`, what
/// `scripts/install` lays out); and, for a build-tree executable
/// (`.build/debug/parley`), the package's own `pipelines/`.
enum PipelineFolders {
    static var executable: URL { URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath() }

    static func candidates(explicit: String?) -> [URL] {
        if let explicit { return [URL(fileURLWithPath: explicit)] }
        let binFolder = executable.deletingLastPathComponent()
        var folders = [
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("pipelines"),
            binFolder.deletingLastPathComponent().appendingPathComponent("share/parley/pipelines"),
        ]
        // A build tree: walk up to the folder holding Package.swift.
        var folder = binFolder
        for _ in 0..<4 {
            folder = folder.deletingLastPathComponent()
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) {
                folders.append(folder.appendingPathComponent("pipelines"))
                break
            }
        }
        return folders
    }

    /// The first candidate that exists.
    static func first(explicit: String?) -> URL? {
        candidates(explicit: explicit).first { isFolder($0) }
    }

    /// `name` as given when it is a file; a path written without its
    /// extension (`pipelines/translate-file`) with it; else `NAME.pipeline`
    /// in the first folder that has it, so `parley run translate-file` works anywhere.
    static func resolve(_ name: String) -> String {
        if FileManager.default.fileExists(atPath: name) { return name }
        if name.contains("/") {
            let withExtension = name + ".pipeline"
            return !name.hasSuffix(".pipeline") && FileManager.default.fileExists(atPath: withExtension) ? withExtension : name
        }
        let fileName = name.hasSuffix(".pipeline") ? name : "\(name).pipeline"
        for folder in candidates(explicit: nil) {
            let path = folder.appendingPathComponent(fileName).path
            if FileManager.default.fileExists(atPath: path) { return path }
        }
        return name
    }

    private static func isFolder(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

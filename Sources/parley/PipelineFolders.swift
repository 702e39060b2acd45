import ArgumentParser
import Foundation
import ParleyCore

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

    /// `resolve(name)` when that is a file; otherwise a sentence that says
    /// where it looked and names the nearest pipeline, and exit status 2.
    static func resolveExisting(_ name: String) throws -> String {
        let path = resolve(name)
        if FileManager.default.fileExists(atPath: path) { return path }
        let named = URL(fileURLWithPath: name)
        var folders = name.contains("/") ? [named.deletingLastPathComponent()] : candidates(explicit: nil).filter(isFolder)
        var seen = Set<String>()
        folders = folders.filter { seen.insert($0.standardizedFileURL.path).inserted }
        let known = folders.flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
                .filter { $0.hasSuffix(".pipeline") }.map { String($0.dropLast(".pipeline".count)) }
        }
        let stem = named.lastPathComponent.hasSuffix(".pipeline") ? String(named.lastPathComponent.dropLast(".pipeline".count)) : named.lastPathComponent
        let hint = Suggestions.closest(to: stem, in: Array(Set(known)).sorted()).map { "; did you mean \($0)?" } ?? ""
        let looked = name.contains("/") ? "no such file" : "not a file here, nor \(stem).pipeline in \(folders.map(\.path).joined(separator: ", "))"
        printError("error: \(SafeText.oneLine(name)): \(looked)\(hint) (parley list shows the pipelines)")
        throw ExitCode(ExitStatus.invalidInput)
    }

    private static func isFolder(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

import ArgumentParser
import Parley
import ParleyCore

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate", abstract: "Check pipeline files without running them.",
        discussion: "Every file is checked and every mistake reported; the exit status is 2 if any file has one.")

    @Argument(help: "The .pipeline files, or names that `parley list` shows.") var files: [String]
    @Option(name: [.customLong("set"), .customShort("s")], help: "Set a declared variable: KEY=VALUE (repeatable), in every file that declares it.")
    var assignments: [String] = []

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("name at least one .pipeline file") }
    }

    func run() throws {
        let overrides = try parseAssignments(assignments)
        let paths = try files.map(PipelineFolders.resolveExisting)
        // A --set applies to the files that declare the variable, so one
        // command line can check files with different variables; one that
        // no file declares is a mistake.
        let declared = paths.map { Set((try? PipelineFile(path: $0))?.variables.map(\.name) ?? []) }
        for name in overrides.keys.sorted() where !declared.contains(where: { $0.contains(name) }) {
            let hint = Suggestions.closest(to: name, in: declared.flatMap { $0 }.sorted()).map { "; did you mean \($0)?" } ?? ""
            throw ValidationError("--set \(name): no file declares a variable \(name)\(hint)")
        }
        var failed = 0
        for (path, names) in zip(paths, declared) {
            if loadValidated(path, overrides: overrides.filter { names.contains($0.key) }) != nil {
                print("\(path): ok")
            } else {
                failed += 1
            }
        }
        if failed > 0 {
            if files.count > 1 { printError("\(failed) of \(files.count) files have errors") }
            throw ExitCode(ExitStatus.invalidInput)
        }
    }
}

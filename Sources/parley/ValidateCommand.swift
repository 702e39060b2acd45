import ArgumentParser
import Parley

struct ValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate", abstract: "Check a pipeline file without running it.")

    @Argument(help: "The .pipeline file.") var file: String
    @Option(name: .customLong("set"), help: "Set a declared variable: KEY=VALUE (repeatable).")
    var assignments: [String] = []

    func run() throws {
        let overrides = try parseAssignments(assignments)
        guard loadValidated(file, overrides: overrides) != nil else { throw ExitCode(ExitStatus.invalidInput) }
        print("\(file): ok")
    }
}

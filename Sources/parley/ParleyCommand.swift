import ArgumentParser
import Foundation
import Parley

@main
struct ParleyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "Run, check and document Parley speech pipelines.",
        subcommands: [RunCommand.self, ValidateCommand.self, InspectCommand.self, ListCommand.self,
                      PluginPathCommand.self, ServeCommand.self, SessionsCommand.self, BenchCommand.self])
}

/// Exit codes, documented in README.
enum ExitStatus {
    static let pipelineFailed: Int32 = 1
    static let invalidInput: Int32 = 2
    static let aborted: Int32 = 130
}

/// Writes to standard error without buffering surprises.
func printError(_ text: String, terminator: String = "\n") {
    FileHandle.standardError.write(Data((text + terminator).utf8))
}

/// Parses repeated `--set KEY=VALUE` options.
func parseAssignments(_ assignments: [String]) throws -> [String: String] {
    var values: [String: String] = [:]
    for assignment in assignments {
        guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
            throw ValidationError("--set takes KEY=VALUE, got \"\(assignment)\"")
        }
        values[String(assignment[..<equals])] = String(assignment[assignment.index(after: equals)...])
    }
    return values
}

/// Loads and validates a pipeline file, printing errors like a compiler.
func loadValidated(_ path: String, overrides: [String: String]) -> (PipelineFile, String)? {
    let file: PipelineFile
    do {
        file = try PipelineFile(path: path)
    } catch {
        printError(error.description)
        return nil
    }
    let errors = PipelineValidator().validate(file, overrides: overrides)
    if !errors.isEmpty {
        for error in errors { printError(error.description) }
        printError("\(errors.count) error\(errors.count == 1 ? "" : "s") in \(path)")
        return nil
    }
    guard let tokens = try? file.tokens(overrides: overrides) else { return nil }
    return (file, PipelineFile.launchString(tokens))
}

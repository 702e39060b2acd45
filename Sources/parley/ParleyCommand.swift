import ArgumentParser
import Foundation
import Parley
import ParleyCore

@main
struct ParleyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "Run, check and document Parley speech pipelines.",
        discussion: ExitStatus.table,
        version: Release.version,
        subcommands: [RunCommand.self, ValidateCommand.self, InspectCommand.self, ListCommand.self,
                      PluginPathCommand.self, ServeCommand.self, SessionsCommand.self, BenchCommand.self,
                      WorkerCommand.self, SubmitCommand.self, JobsCommand.self])

    /// ArgumentParser's own entry point, except that a usage error exits with
    /// 2 like every other wrong input (its default is 64, EX_USAGE), so the
    /// exit-status table holds for every path.
    ///
    /// A wrong value found once a subcommand runs (a session ID that names
    /// none, a malformed --set) is one line, `error: …`, like every other
    /// error a command prints: ArgumentParser's usage after it would be the
    /// root's, which says nothing about the value.
    static func main() async {
        var command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            if exitCode(for: error) == .validationFailure {
                printError(lowercasePrefix(fullMessage(for: error)))
                Foundation.exit(ExitStatus.invalidInput)
            }
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                printError("error: \(message(for: error))")
                Foundation.exit(ExitStatus.invalidInput)
            }
            // An error no command turned into its own sentence still reads
            // `error: …` (ArgumentParser would write `Error: …`).
            if !(error is ExitCode), exitCode(for: error) == .failure {
                printError("error: \(message(for: error))")
                Foundation.exit(ExitStatus.failed)
            }
            exit(withError: error)
        }
    }

    /// ArgumentParser's usage message with the prefix every other error has: `error:`, not `Error:`.
    static func lowercasePrefix(_ message: String) -> String {
        message.hasPrefix("Error: ") ? "error: " + message.dropFirst("Error: ".count) : message
    }
}

/// Exit statuses: the table README and `parley --help` show.
enum ExitStatus {
    static let failed: Int32 = 1
    static let invalidInput: Int32 = 2
    static let aborted: Int32 = 130

    /// What a subcommand's help says: the whole table is `parley --help`'s.
    static let brief = "Exit status: 0 done, 1 the work failed, 2 wrong input, 130 aborted (parley --help says more)."

    /// Each line fits in 80 columns: ArgumentParser wraps a longer one to
    /// column 0, out of the table.
    static let table = """
        Exit status (every command):
          0    done (also when Ctrl-C ended the input and what was in flight
               drained)
          1    the work failed: the pipeline posted an error, the server could
               not start, a deletion was declined
          2    wrong input: an unknown command, option or element, a bad value,
               a file that cannot be read or does not validate
          130  aborted: a second Ctrl-C or SIGTERM (parley bench: the first)
        """
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
        // Every mistake of the header; the body is checked once the header reads.
        printError(error.description)
        printError("\(counted(error.all.count, "error")) in \(path)")
        return nil
    }
    let errors = PipelineValidator().validate(file, overrides: overrides)
    if !errors.isEmpty {
        for error in errors { printError(error.description) }
        printError("\(counted(errors.count, "error")) in \(path)")
        return nil
    }
    guard let tokens = try? file.tokens(overrides: overrides) else { return nil }
    return (file, PipelineFile.launchString(tokens))
}

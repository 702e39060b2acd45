import ArgumentParser
import Foundation
import Parley

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the pipeline files in a folder with their descriptions.")

    @Option(help: "Folder to list.") var directory = "pipelines"

    func run() throws {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            printError("error: no folder \"\(directory)\"")
            throw ExitCode(ExitStatus.invalidInput)
        }
        for name in names.sorted() where name.hasSuffix(".pipeline") {
            let path = (directory as NSString).appendingPathComponent(name)
            let file = try? PipelineFile(path: path)
            let title = String(name.dropLast(".pipeline".count))
            print("\(title.padding(toLength: max(24, title.count + 2), withPad: " ", startingAt: 0))\(file?.description ?? "(unreadable)")")
            for variable in file?.variables ?? [] {
                // A fragment is elements: shown quoted, as --set takes it.
                let value = variable.kind == .fragment ? "\"\(variable.defaultValue)\"" : variable.defaultValue
                print("    \(variable.name)=\(value)  \(variable.help)\(variable.kind == .fragment ? " (elements)" : "")")
            }
        }
    }
}

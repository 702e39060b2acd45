import ArgumentParser
import Foundation
import Parley

struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List pipeline files with their descriptions and variables.",
        discussion: """
            Lists --dir if given; else the first of ./pipelines, the pipelines installed next to the \
            executable (PREFIX/share/parley/pipelines) and, for a build-tree executable, the package's own. \
            `parley run NAME` finds NAME.pipeline in the same places.
            """)

    @Option(name: [.customLong("dir"), .customLong("directory")], help: "Folder to list.") var directory: String?

    func run() throws {
        guard let folder = PipelineFolders.first(explicit: directory),
              let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
            let looked = PipelineFolders.candidates(explicit: directory).map(\.path).joined(separator: ", ")
            printError("error: no pipeline folder (looked in \(looked)); name one with --dir")
            throw ExitCode(ExitStatus.invalidInput)
        }
        print("\(folder.path):")
        for name in names.sorted() where name.hasSuffix(".pipeline") {
            let path = folder.appendingPathComponent(name).path
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

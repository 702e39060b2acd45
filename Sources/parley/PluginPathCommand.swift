import ArgumentParser
import Foundation

struct PluginPathCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin-path",
        abstract: "Print the folder holding libgstparley.so, for GST_PLUGIN_PATH.",
        discussion: """
            Next to the executable in a build tree, PREFIX/lib/gstreamer-1.0 for an installed PREFIX/bin/parley.
            GST_PLUGIN_PATH=$(parley plugin-path) gst-inspect-1.0 parley
            """)

    func run() throws {
        let executable = PipelineFolders.executable
        let binFolder = executable.deletingLastPathComponent()
        let candidates = [binFolder, binFolder.deletingLastPathComponent().appendingPathComponent("lib/gstreamer-1.0")]
        guard let folder = candidates.first(where: {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent("libgstparley.so").path)
        }) else {
            printError("error: libgstparley.so is in none of \(candidates.map(\.path).joined(separator: ", ")); build it with `swift build`")
            throw ExitCode(ExitStatus.failed)
        }
        print(folder.path)
    }
}

import ArgumentParser
import Foundation

struct PluginPathCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin-path",
        abstract: "Print the folder holding libgstparley.so, for GST_PLUGIN_PATH.",
        discussion: "GST_PLUGIN_PATH=$(parley plugin-path) gst-inspect-1.0 parley")

    func run() throws {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let folder = executable.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("libgstparley.so").path) else {
            printError("error: libgstparley.so is not next to \(executable.path); build it with `swift build`")
            throw ExitCode(ExitStatus.pipelineFailed)
        }
        print(folder.path)
    }
}

import ArgumentParser
import Parley

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect", abstract: "Document Parley's elements (or any GStreamer element), like gst-inspect-1.0.")

    @Argument(help: "An element name; without it, Parley's elements are listed.") var element: String?

    func run() throws {
        guard let element else {
            Parley.initialize()
            for name in Parley.elementNames {
                let page = ElementDocs.page(for: name) ?? name
                print(page.split(separator: "\n").first ?? "")
            }
            return
        }
        guard let page = ElementDocs.page(for: element) else {
            printError("error: no element \"\(element)\"")
            throw ExitCode(ExitStatus.invalidInput)
        }
        print(page)
    }
}

import ArgumentParser
import Parley

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Document Parley's elements (or any GStreamer element), like gst-inspect-1.0.",
        discussion: """
            Without an element, lists Parley's elements as gst-inspect-1.0 lists a plugin. With one, shows its \
            metadata, pads, properties (enumerations with their values) and the messages and events it \
            produces with their fields. --reference prints docs/reference.md.
            """)

    @Argument(help: "An element name; without it, Parley's elements are listed.") var element: String?
    @Flag(help: "Print the reference page of every element's messages, events and meta fields (markdown).")
    var reference = false

    func run() throws {
        if reference {
            print(ElementDocs.referencePage(), terminator: "")
            return
        }
        guard let element else {
            print(ElementDocs.listing())
            return
        }
        guard let page = ElementDocs.page(for: element) else {
            let close = ElementDocs.suggestions(for: element)
            let hint = close.isEmpty ? "" : "; did you mean \(close.map { "\"\($0)\"" }.joined(separator: " or "))?"
            printError("error: no element \"\(element)\"\(hint)")
            throw ExitCode(ExitStatus.invalidInput)
        }
        print(page)
    }
}

import GstKit

/// An element's documentation as `parley inspect` prints it: what
/// gst-inspect-1.0 shows, shortened to what a pipeline author needs.
public enum ElementDocs {
    /// The page for factory `name`, or nil if no such element exists.
    public static func page(for name: String) -> String? {
        Parley.initialize()
        guard let factory = ElementFactory(named: name), let element = factory.makeElement() else { return nil }
        var lines: [String] = []
        lines.append("\(name): \(factory.longName ?? name)")
        lines.append("  Klass        \(factory.klass ?? "")")
        lines.append("  Description  \(factory.elementDescription ?? "")")
        if let example = factory.metadata("example") { lines.append("  Example      \(example)") }
        lines.append("")
        lines.append("Pads:")
        for direction in [PadDirection.sink, .src] {
            for caps in factory.templateCaps(direction) {
                lines.append("  \(direction == .sink ? "sink" : "src "): \(caps)")
            }
        }
        lines.append("")
        lines.append("Properties:")
        for info in element.ownProperties { lines.append(contentsOf: describe(info)) }
        return lines.joined(separator: "\n")
    }

    private static func describe(_ info: ParamInfo) -> [String] {
        var access = info.writable ? "read-write" : "read-only"
        if info.changeableInPlaying { access += ", changeable in PLAYING" }
        return [
            "  \(info.name.padding(toLength: 22, withPad: " ", startingAt: 0))\(info.blurb)",
            "  \(String(repeating: " ", count: 22))\(info.typeName), default \(info.defaultValue)\(allowedRange(info.range)); \(access)",
        ]
    }

    private static func allowedRange(_ range: ParamRange?) -> String {
        switch range {
        case .numeric(let minimum, let maximum): ", range \(minimum) to \(maximum)"
        case .oneOf(let nicks): ", one of \(nicks.joined(separator: " | "))"
        case nil: ""
        }
    }
}

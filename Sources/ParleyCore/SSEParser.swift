/// A synchronous server-sent events parser, fed raw bytes as libcurl hands
/// them over (chunks split anywhere, even inside a UTF-8 character).
public struct SSEParser: Sendable {
    public struct Event: Sendable, Equatable {
        public var name: String
        public var data: String
    }

    private var buffer: [UInt8] = []
    private var name = ""
    private var data: [String] = []

    public init() {}

    /// The events completed by `bytes`. Linear in what is fed: lines are
    /// read from an offset and the buffer is cut once per call (cutting it
    /// per line made a 2 MB answer in one piece take minutes).
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [Event] where Bytes.Element == UInt8 {
        buffer.append(contentsOf: bytes)
        var events: [Event] = []
        var start = 0
        defer { buffer.removeFirst(start) }
        while let newline = buffer[start...].firstIndex(of: 10) {
            var line = buffer[start..<newline]
            start = newline + 1
            if line.last == 13 { line = line.dropLast() }
            if line.isEmpty {
                if !data.isEmpty { events.append(Event(name: name.isEmpty ? "message" : name, data: data.joined(separator: "\n"))) }
                name = ""
                data = []
                continue
            }
            let text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix(":") { continue }  // comment / keep-alive
            let field: Substring, value: Substring
            if let colon = text.firstIndex(of: ":") {
                field = text[..<colon]
                var rest = text[text.index(after: colon)...]
                if rest.first == " " { rest = rest.dropFirst() }
                value = rest
            } else {
                field = Substring(text)
                value = ""
            }
            switch field {
            case "event": name = String(value)
            case "data": data.append(String(value))
            default: break
            }
        }
        return events
    }
}

// linesplitter: text in any chunks (a file, standard input, a socket) out as
// one buffer per line, each a final result of its own segment, so the text
// elements (streamtranslator, cloudtts, transcriptsink, sessionrecorder)
// treat a line as they treat an utterance.
//
//     printf 'good morning\nthank you\n' | gst-launch-1.0 fdsrc fd=0 \
//         ! text/x-raw,format=utf8 ! linesplitter language=en \
//         ! streamtranslator source-language=en target-language=es ! transcriptsink
//
// Each line carries a ParleySpeechMeta: segment id 0, 1, 2… in line order,
// status final, `language` as set. Lines have no time of their own; their
// buffers have no timestamps. The rules (line ends, long lines, invalid
// UTF-8, blank lines) are LineBuffer's.
import GstKit
import ParleyCore
import ParleySpeech
import Synchronization

public final class LineSplitterElement: Filter {
    public static let DEFAULT_LANGUAGE = ""
    public static let DEFAULT_MAX_LINE_BYTES = 16 * 1024
    public static let DEFAULT_SKIP_BLANK = true

    public static let metadata = ElementMetadata(
        factoryName: "linesplitter", typeName: "GstLineSplitter",
        longName: "Line splitter", klass: "Filter/Text",
        description: "Cuts text into one buffer per line, each a final result with its own segment id",
        docURI: Release.documentation(for: "linesplitter"),
        example: "gst-launch-1.0 filesrc location=/usr/share/common-licenses/GPL-3 ! text/x-raw,format=utf8 ! linesplitter ! transcriptsink format=jsonl")
    public static let pads = PadTemplates(sink: "text/x-raw, format=(string)utf8", src: "text/x-raw, format=(string)utf8")
    public static let properties = [
        PropertySpec("language", nick: "Language",
                     blurb: "Language of the text (BCP-47, e.g. en), put in each line's speech meta; empty = unknown",
                     .string(default: DEFAULT_LANGUAGE)),
        PropertySpec("max-line-bytes", nick: "Maximum line length",
                     blurb: "A longer line is cut (on a character boundary) into pieces of at most this many bytes, with a warning",
                     .int(default: DEFAULT_MAX_LINE_BYTES, range: 4...(1 << 20))),
        PropertySpec("skip-blank", nick: "Skip blank lines", blurb: "Lines of only whitespace are dropped",
                     .bool(default: DEFAULT_SKIP_BLANK)),
        PropertySpec("lines", nick: "Lines", blurb: "Lines sent since the element started",
                     .uint64(default: 0, range: 0...UInt64.max), flags: .readOnly),
    ]

    struct Settings {
        var language = DEFAULT_LANGUAGE
        var maxLineBytes = DEFAULT_MAX_LINE_BYTES
        var skipBlank = DEFAULT_SKIP_BLANK
    }

    struct State {
        var buffer: LineBuffer
        var language: String
        var nextSegment: UInt64 = 0
        var warnedAboutCuts = false
    }


    public let element: ElementHandle
    private let settings = Mutex(Settings())
    private let state = Mutex(State(buffer: LineBuffer(maxBytes: DEFAULT_MAX_LINE_BYTES), language: DEFAULT_LANGUAGE))
    private let sent = Atomic<UInt64>(0)

    public init(element: ElementHandle) { self.element = element }

    public func property(named name: String) -> PropertyValue {
        let current = settings.withLock { $0 }
        switch name {
        case "language": return .string(current.language)
        case "max-line-bytes": return .int(current.maxLineBytes)
        case "skip-blank": return .bool(current.skipBlank)
        case "lines": return .uint64(sent.load(ordering: .relaxed))
        default: Self.unhandledProperty(name)
        }
    }

    public func setProperty(named name: String, to value: PropertyValue) {
        settings.withLock { settings in
            switch name {
            case "language": settings.language = value.string ?? ""
            case "max-line-bytes": settings.maxLineBytes = value.int
            case "skip-blank": settings.skipBlank = value.bool
            default: Self.unhandledProperty(name)
            }
        }
    }

    public func start() throws(ElementMessageText) {
        let current = settings.withLock { $0 }
        sent.store(0, ordering: .relaxed)
        state.withLock {
            $0 = State(buffer: LineBuffer(maxBytes: current.maxLineBytes, skipBlank: current.skipBlank), language: current.language)
        }
    }

    public func transform(_ buffer: Buffer) -> [Output] {
        let (lines, cutAt) = state.withLock { state -> ([Output], Int?) in
            let cutBefore = state.buffer.cutLines
            let lines = buffer.withBytes { state.buffer.push($0) }
            let cut = state.buffer.cutLines > cutBefore && !state.warnedAboutCuts
            if cut { state.warnedAboutCuts = true }
            return (Self.outputs(lines, &state), cut ? state.buffer.maxBytes : nil)
        }
        if let limit = cutAt {
            element.postWarning(.stream("A line is longer than \(limit) bytes; it is cut into pieces (property max-line-bytes)"))
        }
        sent.add(UInt64(lines.count), ordering: .relaxed)
        return lines
    }

    public func sinkEvent(_ event: Event) -> [Output] {
        guard case .eos = event.view else { return [.event(event)] }
        let last = state.withLock { state in Self.outputs(state.buffer.finish(), &state) }
        sent.add(UInt64(last.count), ordering: .relaxed)
        return last + [.event(event)]
    }

    private static func outputs(_ lines: [String], _ state: inout State) -> [Output] {
        lines.map { line in
            let buffer = Buffer(string: line)
            buffer.setSpeechMeta(SpeechMeta(segmentID: state.nextSegment, status: .final, language: state.language))
            state.nextSegment += 1
            return .buffer(buffer)
        }
    }
}
